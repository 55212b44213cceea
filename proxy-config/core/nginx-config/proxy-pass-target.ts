/** What a `proxy_pass` argument points at. */
export interface ProxyPassTarget {
  scheme: string;
  /** Host as written, with its port if any (`api`, `127.0.0.1:8080`, `unix:/run/app.sock`). */
  host: string;
  /** Whether a port was written; an `upstream {}` group is only used when it was not. */
  hasPort: boolean;
  /** The URI part (`/`, `/v1/`), or undefined when none was written: then nginx passes the request URI unchanged. */
  uri: string | undefined;
  /** Variables make nginx resolve the target per request and pass the URI as written. */
  hasVariables: boolean;
}

/** Splits a `proxy_pass` URL into scheme, host and URI part; undefined when it is not a URL. */
export function parseProxyPassTarget(url: string): ProxyPassTarget | undefined {
  const match = /^([a-z]+):\/\/(.*)$/i.exec(url);
  if (!match) return undefined;
  const scheme = (match[1] as string).toLowerCase();
  const rest = match[2] as string;
  let host: string;
  let uri: string | undefined;
  if (rest.startsWith('unix:')) {
    const colon = rest.indexOf(':', 5);
    host = colon === -1 ? rest : rest.slice(0, colon);
    // `unix:/run/app.sock:` ends the path with nothing after it: nginx reads no URI part there
    // (its URI has length 0, accepted in a regex location by nginx 1.22's -t).
    uri = colon === -1 || colon === rest.length - 1 ? undefined : rest.slice(colon + 1);
  } else {
    const slash = rest.indexOf('/');
    host = slash === -1 ? rest : rest.slice(0, slash);
    uri = slash === -1 ? undefined : rest.slice(slash);
  }
  const hasPort = !host.startsWith('unix:') && /:\d+$/.test(host);
  return { scheme, host, hasPort, uri, hasVariables: url.includes('$') };
}
