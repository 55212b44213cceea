import type { ProxySpec } from '../spec/proxy-spec.js';
import { renderTemplate } from './template-engine.js';
import { buildRenderView, CACHE_AGE_SCRIPT, usesResponseCache } from './build-render-view.js';

/**
 * The files a render produces, relative path → content: a self-contained `nginx.conf`, and the njs
 * script it loads (next to it) when a route caches.
 */
export type RenderedFiles = Record<string, string>;

/** The main config file's name inside a rendered directory. */
export const MAIN_CONFIG_FILE = 'nginx.conf';

/** Renders a validated spec with the given templates (name → text). Same input, byte-identical output. */
export function renderNginxConfig(spec: ProxySpec, templates: Record<string, string>): RenderedFiles {
  const text = renderTemplate(templates, 'nginx.conf', buildRenderView(spec));
  return {
    [MAIN_CONFIG_FILE]: text.replace(/\n{3,}/g, '\n\n'),
    ...(usesResponseCache(spec)
      ? { [CACHE_AGE_SCRIPT]: renderTemplate(templates, CACHE_AGE_SCRIPT, {}) }
      : {}),
  };
}
