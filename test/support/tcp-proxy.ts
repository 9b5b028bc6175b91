// A TCP proxy in front of PostgreSQL that a test can make misbehave the way networks and servers
// do: hold new connections, swallow them (a host that does not answer), or cut the live ones.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** New connections wait this long before they are passed on (0: at once). */
  holdMs: number;
  /** New connections are accepted and never answered. */
  blackhole: boolean;
  /** Cuts every live connection: both sides closed, or reset (RST) with `reset`. */
  cutAll(options?: { reset?: boolean }): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const live = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    live.add(socket);
    socket.on('close', () => live.delete(socket));
    socket.on('error', () => {});
  };
  const server = net.createServer((client) => {
    track(client);
    if (proxy.blackhole) return;
    client.pause();
    setTimeout(() => {
      if (client.destroyed) return;
      const upstream = net.connect(target.port, target.host);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.resume();
    }, proxy.holdMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    holdMs: 0,
    blackhole: false,
    cutAll(options = {}) {
      for (const socket of live) {
        if (options.reset) socket.resetAndDestroy();
        else socket.destroy();
      }
    },
    async close() {
      proxy.cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

/** A port nothing listens on (connects to it are refused). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
