/** What lint needs to know of a `*_pass` directive, the one that hands a request to an upstream. */
export interface PassDirective {
  /**
   * The address may hold variables (`proxy_pass http://$host;`): nginx then resolves it per
   * request, through `resolver`. memcached_pass's may not.
   */
  variables: boolean;
  /**
   * A host written without a port gets one: false where nginx -t refuses a bare name that no
   * upstream group defines ("no port in upstream"; checked on nginx 1.22: grpc_pass too, even
   * as grpc://name).
   */
  defaultPort: boolean;
  /** The upstream's response headers (its ETag among them) are handed on to the client. */
  upstreamHeaders: boolean;
}

/** Every `*_pass` directive of the http context, by name: the one list lint reads them from. */
export const PASS_DIRECTIVES: ReadonlyMap<string, PassDirective> = new Map([
  ['proxy_pass', { variables: true, defaultPort: true, upstreamHeaders: true }],
  ['fastcgi_pass', { variables: true, defaultPort: false, upstreamHeaders: true }],
  ['uwsgi_pass', { variables: true, defaultPort: false, upstreamHeaders: true }],
  ['scgi_pass', { variables: true, defaultPort: false, upstreamHeaders: true }],
  ['grpc_pass', { variables: true, defaultPort: false, upstreamHeaders: true }],
  ['memcached_pass', { variables: false, defaultPort: false, upstreamHeaders: false }],
]);

/** The pass a directive is, or undefined when it is not one. */
export const passDirective = (name: string): PassDirective | undefined => PASS_DIRECTIVES.get(name);
