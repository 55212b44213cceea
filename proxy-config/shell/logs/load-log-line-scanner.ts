import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Built by `npm run build` next to the compiled shell; run from TypeScript sources, take the built one.
const wasmFile = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts')
      ? '../../../dist/proxy-config/assembly/log-line-scanner.wasm'
      : '../../assembly/log-line-scanner.wasm',
    import.meta.url,
  ),
);

let loaded: WebAssembly.Module | null | undefined;

/** The compiled WebAssembly line scanner, or null when it was not built (the JavaScript readers then do all). */
export function loadLogLineScanner(): WebAssembly.Module | null {
  if (loaded === undefined) {
    try {
      loaded = new WebAssembly.Module(readFileSync(wasmFile));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      loaded = null;
    }
  }
  return loaded;
}
