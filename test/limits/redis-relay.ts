// A TCP relay to the test Redis that tests can cut (Redis down) or freeze (connected but silent).
import net from 'node:net';

export class RedisRelay {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  frozen = false;
  port = 0;

  constructor() {
    this.server = net.createServer((client) => {
      const upstream = net.connect(6379, '127.0.0.1');
      this.sockets.add(client).add(upstream);
      const drop = () => { client.destroy(); upstream.destroy(); };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.on('data', (d) => { if (!this.frozen) upstream.write(d); });
      upstream.on('data', (d) => { if (!this.frozen) client.write(d); });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
    return `redis://127.0.0.1:${this.port}`;
  }

  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  async stop(): Promise<void> {
    await this.cut().catch(() => undefined);
  }
}
