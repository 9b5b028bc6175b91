// A test database reached through a TCP proxy (tcp-proxy.ts), so a test can take the database
// away from a running server (the proxy swallows new connections and cuts the live ones) and give
// it back: the real outage a client sees as 503 service_unavailable.
import { createTestDatabase } from './database.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export interface ProxiedDatabase {
  /** The database's URL through the proxy (TCP). */
  url: string;
  proxy: TcpProxy;
  /** New connections hang and live ones are cut, until restore(). */
  takeAway(): void;
  restore(): void;
  drop(): Promise<void>;
}

export async function createProxiedDatabase(): Promise<ProxiedDatabase> {
  const db = await createTestDatabase();
  const direct = new URL(db.url);
  direct.searchParams.delete('host'); // the run's server may be handed over as a Unix socket; the proxy speaks TCP
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(direct);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  return {
    url: proxied.toString(),
    proxy,
    takeAway() {
      proxy.blackhole = true;
      proxy.cutAll();
    },
    restore() {
      proxy.blackhole = false;
      // The connections swallowed meanwhile would hang until their connect timeout: cut them, so
      // the server's pool connects afresh at once.
      proxy.cutAll();
    },
    async drop() {
      await proxy.close();
      await db.drop();
    },
  };
}
