// TLS material for the real-time WebSocket: the configured certificate, or a self-signed one
// created at first start (selfsigned package), kept in the data directory and reused.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import selfsigned from 'selfsigned';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';

export function loadTls(config: Config, log: FastifyBaseLogger): { cert: string; key: string; selfSigned: boolean } {
  if (config.tlsCertPath && config.tlsKeyPath) {
    return { cert: readFileSync(config.tlsCertPath, 'utf8'), key: readFileSync(config.tlsKeyPath, 'utf8'), selfSigned: false };
  }
  const dir = path.join(config.dataDir, 'tls');
  const certFile = path.join(dir, 'realtime-cert.pem');
  const keyFile = path.join(dir, 'realtime-key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    log.info({ cert: certFile }, 'real-time WebSocket uses the self-signed certificate created earlier');
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), selfSigned: true };
  }
  const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    days: 825,
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  log.warn({ cert: certFile }, 'no TLS_CERT_PATH/TLS_KEY_PATH: created a self-signed certificate for the real-time WebSocket');
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
