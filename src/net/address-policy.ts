// Which addresses a user-supplied URL may reach (the SSRF rule of src/net/safe-fetch.ts): unicast
// only; IPv4-mapped IPv6 judged as the IPv4 it carries; every other IPv6 form that embeds an IPv4
// address refused whatever it carries (issue 30, item 6; decision #39).

import ipaddr from 'ipaddr.js';

/** True for the unicast (public) addresses; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function isPublicAddress(address: string): boolean {
  return addressProblem(address) === null;
}

/**
 * The IPv4 address an IPv6 address carries in one of the embedding forms other than IPv4-mapped
 * (judged as IPv4 by ipaddr.process), with the form's name; null for an IPv6 address of none.
 */
export function embeddedIPv4(v6: ipaddr.IPv6): { form: string; v4: string } | null {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 6)) return { form: 'IPv4-compatible', v4: v4(p[6]!, p[7]!) };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: 'SIIT (::ffff:0:0/96)', v4: v4(p[6]!, p[7]!) };
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return { form: 'NAT64 (64:ff9b::/96)', v4: v4(p[6]!, p[7]!) };
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return { form: 'NAT64 (64:ff9b:1::/48)', v4: v4(p[6]!, p[7]!) };
  if (p[0] === 0x2002) return { form: '6to4', v4: v4(p[1]!, p[2]!) };
  // Teredo: the client's address is the last 32 bits, inverted.
  if (p[0] === 0x2001 && p[1] === 0) return { form: 'Teredo', v4: v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff) };
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) return { form: 'ISATAP', v4: v4(p[6]!, p[7]!) };
  return null;
}

/** Why `address` may not be reached (not public), or null when it may. */
export function addressProblem(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an address`;
  // IPv6 in the form WHATWG URL writes it (what a socket connects to): ipaddr.js reads the
  // dotted tail of "::a.b.c.d" (IPv4-compatible) as "::ffff:a.b.c.d" (mapped), which would let
  // ::8.8.8.8 pass as 8.8.8.8 and hide the form.
  let canonical = address;
  if (address.includes(':')) {
    try {
      canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
    } catch {
      return `${address} is not an address`;
    }
  }
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const v4 = v6.toIPv4Address();
      return v4.range() === 'unicast' ? null : `${address} carries ${v4.toString()}, which is not public`;
    }
    const embedded = embeddedIPv4(v6);
    if (embedded) return `${address} is an ${embedded.form} address carrying ${embedded.v4}: write an IPv4 host as IPv4`;
  }
  return parsed.range() === 'unicast' ? null : `the address ${address} is not public`;
}
