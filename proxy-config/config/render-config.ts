import { ProxyopsError } from '../core/errors.js';
import { renderNginxConfig, type RenderedFiles } from '../core/render/render-nginx-config.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { readTemplates } from '../shell/nginx/read-templates.js';
import { writeRenderedFiles } from '../shell/nginx/write-rendered-files.js';

/** A spec and what it renders to. */
export interface RenderResult {
  spec: ProxySpec;
  files: RenderedFiles;
}

/** Renders a validated spec with the shipped templates. */
export async function renderSpec(spec: ProxySpec): Promise<RenderedFiles> {
  return renderNginxConfig(spec, await readTemplates());
}

/** Reads, validates and renders a spec file; with `outDir`, also writes the files there. */
export async function renderConfigFile(
  specPath: string,
  outDir?: string,
): Promise<RenderResult & { written: string[] }> {
  const spec = await readSpecFile(specPath);
  // A spec naming a hand-written config renders nothing: printing a render would show a config
  // that is not, and never will be, the one nginx runs.
  if (spec.nginx)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${specPath} names a hand-written config (nginx.conf ${spec.nginx.conf}), so proxyops renders nothing from it: see what it would change with config diff --spec ${specPath}`,
    );
  const files = await renderSpec(spec);
  const written = outDir ? await writeRenderedFiles(outDir, files) : [];
  return { spec, files, written };
}
