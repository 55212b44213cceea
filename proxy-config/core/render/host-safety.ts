import type { ServerSpec } from '../spec/proxy-spec.js';

/** What a request whose Host names none of the spec's servers gets. */
export type UnknownHostAnswer = 'misdirected' | 'close';

/** One listening socket with no default server in the spec: the catch-all server that guards it. */
export interface CatchAllView {
  listen: string;
  tls: boolean;
  close: boolean;
  body: string;
}

/**
 * Catch-all servers for the sockets the spec leaves without a `defaultServer`. Without one, nginx
 * hands a request with any Host to the first server on the socket, and the app builds its links
 * from that Host. With one, only the spec's names reach the app: others get 421 (a JSON problem) or
 * a closed connection, and a TLS handshake for an unknown name is refused.
 */
export function planCatchAllServers(
  servers: readonly ServerSpec[],
  answer: UnknownHostAnswer,
  layerName: string,
  toListen: (l: ServerSpec['listen'][number]) => string,
): CatchAllView[] {
  const sockets = new Map<string, { tls: boolean; hasDefault: boolean }>();
  for (const server of servers)
    for (const listen of server.listen) {
      // A redirect server listens on the plain ports of a TLS server: those sockets count as plain.
      const key = toListen(listen);
      const seen = sockets.get(key) ?? { tls: listen.tls, hasDefault: false };
      sockets.set(key, { tls: seen.tls, hasDefault: seen.hasDefault || listen.defaultServer });
    }
  const body = JSON.stringify({
    type: 'urn:proxyops:problem:misdirected-request',
    title: 'Misdirected request',
    status: 421,
    detail: 'this server does not serve the host named in the request',
    code: 'MISDIRECTED_REQUEST',
    requestId: '__REQUEST_ID__',
    layer: layerName,
  }).replace('"__REQUEST_ID__"', '"$proxyops_request_id"');
  return [...sockets.entries()]
    .filter(([, socket]) => !socket.hasDefault)
    .map(([listen, socket]) => ({ listen, tls: socket.tls, close: answer === 'close', body }));
}

/**
 * The nginx regex matching a Host header (with an optional port) for one server's names: exact
 * names and `*.suffix`/`prefix.*` wildcards. Regex names (`~…`) are not repeated here; a request
 * they match forwards the server's first plain name instead.
 */
export function hostHeaderPattern(names: readonly string[]): string | undefined {
  const parts = names
    .filter((name) => !name.startsWith('~') && name !== '_' && name !== '')
    .map((name) => {
      const escaped = name.replace(/[.^$]/g, (c) => `\\${c}`);
      if (name.startsWith('.')) return `(?:[^.:]+\\.)*${escaped.slice(2)}`;
      return escaped.replace(/^\*\\?/, '[^:]+').replace(/\\?\.\*$/, '\\.[^:]+');
    });
  return parts.length === 0 ? undefined : `~*^(?:${parts.join('|')})(?::[0-9]{1,5})?$`;
}

/** The name links fall back to when a request's Host matched no plain name (a default server's). */
export function primaryName(names: readonly string[]): string {
  return names.find((name) => /^[A-Za-z0-9.-]+$/.test(name)) ?? 'localhost';
}
