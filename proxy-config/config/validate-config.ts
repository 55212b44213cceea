import { join } from 'node:path';
import { ProxyopsError, isProxyopsError } from '../core/errors.js';
import { explainNginxError } from '../core/render/locate-nginx-error.js';
import { findMissingModule } from '../core/render/nginx-modules.js';
import { MAIN_CONFIG_FILE, type RenderedFiles } from '../core/render/render-nginx-config.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { relocateRuntimePaths } from '../core/spec/relocate-runtime-paths.js';
import { hasLintErrors, lintNginxConfigFiles, type LintReport } from './lint-config.js';
import { testNginxConfig } from '../shell/nginx/nginx-process.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { createTempPrefix } from '../shell/nginx/temp-prefix.js';
import { writeRenderedFiles } from '../shell/nginx/write-rendered-files.js';
import { renderSpec } from './render-config.js';
import { validateAdoptedTree, type TreeValidateReport } from './validate-tree.js';

/** What the rendered files got from lint and from nginx -t. */
export interface RenderedCheck {
  /** Findings with file names relative to the rendered directory (`nginx.conf`). */
  lint: LintReport;
  nginxOutput: string;
}

/** What `config validate` found: the spec, the files it renders to, lint findings and nginx -t's word. */
export interface ValidateReport extends RenderedCheck {
  spec: ProxySpec;
  files: RenderedFiles;
  /** False when lint found an error-severity problem (nginx -t failures throw). */
  ok: boolean;
}

/**
 * Schema and cross-field checks, render, lint of the rendered files, then real `nginx -t` on a
 * temporary prefix; for a spec naming a hand-written config, lint and nginx -t of that tree instead.
 */
export async function validateConfigFile(specPath: string): Promise<ValidateReport | TreeValidateReport> {
  const spec = await readSpecFile(specPath);
  if (spec.nginx) return validateAdoptedTree(specPath, { ...spec, nginx: spec.nginx });
  const files = await renderSpec(spec);
  const check = await checkSpecInTempPrefix(spec);
  return { spec, files, ...check, ok: !hasLintErrors(check.lint) };
}

/** Renders the spec with its runtime paths moved into a temporary prefix, then lints it and runs nginx -t there. */
export async function checkSpecInTempPrefix(spec: ProxySpec): Promise<RenderedCheck> {
  const prefix = await createTempPrefix('validate');
  try {
    const files = await renderSpec(relocateRuntimePaths(spec, prefix.dir));
    await writeRenderedFiles(prefix.dir, files);
    return await checkRenderedConfig(prefix.dir, files, {
      prefix: prefix.dir,
      startupErrorLog: join(prefix.dir, 'logs', 'error.log'),
    });
  } finally {
    await prefix.remove();
  }
}

/** Lints rendered files written in `dir` and runs nginx -t on them. */
export async function checkRenderedConfig(
  dir: string,
  files: RenderedFiles,
  where: { prefix: string; startupErrorLog: string },
): Promise<RenderedCheck> {
  const lint = relativeTo(dir, await lintRenderedConfig(dir, files));
  const nginxOutput = await testRenderedConfig(dir, files, where);
  return { lint, nginxOutput };
}

/** Runs nginx -t on rendered files written in `dir`; a failure keeps nginx's message and shows the failing line. */
export async function testRenderedConfig(
  dir: string,
  files: RenderedFiles,
  where: { prefix: string; startupErrorLog: string },
): Promise<string> {
  try {
    return await testNginxConfig({ confPath: join(dir, MAIN_CONFIG_FILE), ...where });
  } catch (error) {
    if (isProxyopsError(error) && error.code === 'NGINX_TEST_FAILED') {
      const output = String((error.details as { output?: string } | undefined)?.output ?? error.message);
      const missing = findMissingModule(output);
      // Not a mistake in the config: this machine lacks a package. Say which one.
      if (missing)
        throw new ProxyopsError(
          'NGINX_MODULE_MISSING',
          `nginx cannot load ${missing.path} (${missing.reason}), which ${missing.module.neededBy} needs; install it with: apt-get install -y ${missing.module.package} (or set paths.modulesDir to nginx's modules directory)`,
          { cause: error, details: { output } },
        );
      throw new ProxyopsError(
        'NGINX_TEST_FAILED',
        `nginx -t failed:\n${explainNginxError(output, files, dir)}`,
        { cause: error, details: { output } },
      );
    }
    throw error;
  }
}

/**
 * Lints the rendered files. A directive the parser refuses (a snippet in the wrong block) is reported
 * like nginx -t's refusals: the rendered file's own name and the line quoted, since `dir` is a
 * temporary or staging directory that is gone by the time the user reads the message.
 */
async function lintRenderedConfig(dir: string, files: RenderedFiles): Promise<LintReport> {
  try {
    // What proxyops rendered is about to be applied: a refusal stops it, as nginx -t would.
    return await lintNginxConfigFiles(join(dir, MAIN_CONFIG_FILE), { notAllowed: 'fail' });
  } catch (error) {
    if (!isProxyopsError(error) || error.code !== 'NGINX_CONFIG_INVALID') throw error;
    const at = error.details as { file?: string; line?: number } | undefined;
    if (!at?.file?.startsWith(`${dir}/`) || at.line === undefined) throw error;
    const file = at.file.slice(dir.length + 1);
    const quoted = files[file]?.split('\n')[at.line - 1]?.trim();
    throw new ProxyopsError(
      'NGINX_CONFIG_INVALID',
      `the rendered config is invalid: ${error.message.replaceAll(`${dir}/`, '')}` +
        (quoted === undefined ? '' : `\n  ${at.line} | ${quoted}`),
      { cause: error, details: { ...at, file } },
    );
  }
}

function relativeTo(dir: string, report: LintReport): LintReport {
  const strip = (text: string) => text.replaceAll(`${dir}/`, '');
  return {
    ...report,
    mainFile: strip(report.mainFile),
    files: report.files.map(strip),
    findings: report.findings.map((f) => ({ ...f, file: strip(f.file), what: strip(f.what) })),
  };
}
