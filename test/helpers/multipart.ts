// Builds a multipart/form-data body the way a client's FormData would.
export async function multipart(
  file: Uint8Array | null,
  fields: Record<string, string | string[]>,
  filename = 'audio.wav',
): Promise<{ body: Buffer; contentType: string }> {
  const fd = new FormData();
  if (file) fd.set('file', new Blob([new Uint8Array(file)]), filename);
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) fd.append(k, one);
  const req = new Request('http://localhost/', { method: 'POST', body: fd });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}
