import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = process.cwd();
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean }>;
};
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scarfSettings?: { enabled?: boolean };
};

/**
 * Packages whose install script `npm ci` runs, each with why it is acceptable. @scarf/scarf (pulled by
 * the Spectral packages behind `npm run lint:openapi`) reports installs to a server unless the root
 * package opts out: `scarfSettings.enabled: false` in package.json, which its script reads. esbuild
 * (a build tool: it bundles the CLI's front) checks that the binary of its platform package, an
 * optional dependency from the same lock file, runs; only when npm left that package out does it
 * fetch the same version from the npm registry. It reports nothing anywhere.
 */
const INSTALL_SCRIPTS: Record<string, () => boolean> = {
  'node_modules/@scarf/scarf': () => pkg.scarfSettings?.enabled === false,
  'node_modules/esbuild': () => true,
};

describe('dependencies', () => {
  it('run no install script that is not known, and no telemetry on install', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path);
    for (const path of withScripts) {
      const accepted = INSTALL_SCRIPTS[path];
      expect(accepted, `${path} runs an install script nobody has looked at`).toBeDefined();
      expect(accepted!(), `${path}: its install-time telemetry is not disabled`).toBe(true);
    }
  });
});
