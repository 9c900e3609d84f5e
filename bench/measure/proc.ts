// What a process has used, from Linux /proc: CPU time (its own threads and its finished, waited-for
// child processes such as Flite's) and resident memory.
import { readFileSync } from 'node:fs';

/** CPU ms (user + system) of `pid`, every thread, plus its finished children's (fields 14-17 of /proc/pid/stat). */
export function cpuWithChildrenMs(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
}

/** CPU ms of the finished children of `pid` alone (the CLIs a benchmark ran). */
export function childrenCpuMs(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Resident memory of `pid`, MB (VmRSS). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}
