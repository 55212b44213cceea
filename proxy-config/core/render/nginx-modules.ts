/** A dynamic nginx module an option of the spec needs, and the Debian package that ships it. */
export interface NginxModule {
  /** The shared object in nginx's modules directory. */
  file: string;
  /** The Debian package that installs it. */
  package: string;
  /** The spec fields that make the rendered config load it. */
  neededBy: string;
}

/**
 * njs: nginx cannot compute `Age` itself (it has no arithmetic on dates), so `routes[].cache`
 * evaluates a few lines of JavaScript per cached response through `js_set`. njs is nginx's own
 * module; the perl one that could do the same is marked experimental and embeds a whole
 * interpreter in every worker.
 */
export const NJS_MODULE: NginxModule = {
  file: 'ngx_http_js_module.so',
  package: 'libnginx-mod-http-js',
  neededBy: 'routes[].cache (the Age header on cached responses)',
};

/** Every module a rendered config may load. */
export const NGINX_MODULES: readonly NginxModule[] = [NJS_MODULE];

/**
 * The module nginx -t could not load, from its output (`dlopen() "…/ngx_http_js_module.so" failed`),
 * with the path it tried and nginx's reason; undefined when the output names none of ours.
 */
export function findMissingModule(
  output: string,
): { module: NginxModule; path: string; reason: string } | undefined {
  for (const module of NGINX_MODULES) {
    const escaped = module.file.replace(/\./g, '\\.');
    const match = new RegExp(`dlopen\\(\\) "([^"]*/${escaped})" failed \\(([^\\n]*)\\)`).exec(output);
    if (match) return { module, path: match[1]!, reason: match[2]! };
  }
  return undefined;
}
