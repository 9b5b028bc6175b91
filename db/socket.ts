// The sockets of our postgres.js pools (its documented `socket` option): plain TCP or Unix socket
// connections that report a lost connection to postgres.js at once.
//
// Node emits a socket's 'error' (a reset) or 'end' (the server closed it) first, and its 'close'
// only once the handle is closed, a turn of the event loop later. postgres.js 3.4.9 moves a
// connection out of its pool on 'close' alone, so in between it still hands new statements to
// the dying connection (pipelined behind the failed one). After a reset those are never failed:
// they wait forever, and the connection never rejoins the pool (seen in test: the next statement
// after an ECONNRESET hung with nothing left to end it). After an end they fail with Node's
// write-after-end errors. So 'close' is sent on to postgres.js right after 'error' or 'end'; the
// real one that follows is dropped.
import net from 'node:net';

/** The parsed options postgres.js passes to its `socket` option. */
export interface SocketTarget {
  path?: string | false;
  host: string[];
  port: number[];
}

export function openSocket(target: SocketTarget): net.Socket {
  const socket = target.path ? net.connect(target.path) : net.connect(target.port[0], target.host[0]);
  // For postgres.js's error messages ("connect ECONNREFUSED host:port" comes from Node itself).
  Object.assign(socket, { host: target.host[0], port: target.port[0] });
  // postgres.js drops its listeners on 'close'; an error after that (a write racing the close)
  // must not become an unhandled 'error' event, which ends the process.
  socket.on('error', () => {});
  let closeSent = false;
  const emit = socket.emit as (this: net.Socket, event: string | symbol, ...args: unknown[]) => boolean;
  socket.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'close') {
      if (closeSent) return false;
      closeSent = true;
      return emit.call(this, event, ...args);
    }
    const listened = emit.call(this, event, ...args);
    if ((event === 'error' || event === 'end') && !closeSent) {
      closeSent = true;
      emit.call(this, 'close', event === 'error');
      socket.destroy(); // after an 'end' the socket would otherwise stay half open
    }
    return listened;
  } as typeof socket.emit;
  return socket;
}
