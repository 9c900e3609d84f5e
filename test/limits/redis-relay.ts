// A TCP relay to the test Redis that tests can cut (Redis down) or freeze (connected but silent);
// it can also hold Redis's replies back (a slow network) and counts the script calls sent through it.
import net from 'node:net';

export class RedisRelay {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  frozen = false;
  port = 0;
  /** Replies reach the client this much later. */
  replyDelayMs = 0;
  /** EVALSHA and EVAL commands relayed to Redis. */
  scriptCalls = 0;

  constructor() {
    this.server = net.createServer((client) => {
      const upstream = net.connect(6379, '127.0.0.1');
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.on('data', (d: Buffer) => {
        if (this.frozen) return;
        // RESP: each command's name is a bulk string, e.g. "$7\r\nevalsha\r\n".
        this.scriptCalls += d.toString('latin1').match(/\$(7\r\nevalsha|4\r\neval)\r\n/gi)?.length ?? 0;
        upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (this.frozen) return;
        if (this.replyDelayMs > 0) setTimeout(() => client.write(d), this.replyDelayMs);
        else client.write(d);
      });
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
