import { ProxyopsError } from '../core/errors.js';
import type { AdoptedNginxSpec, ProxySpec } from '../core/spec/proxy-spec.js';
import { findNginxBinary } from '../shell/nginx/nginx-binary.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { testTreeCopy } from '../shell/nginx/test-tree-copy.js';
import { hasLintErrors, lintNginxConfigFiles, type LintReport } from './lint-config.js';
import { findLintNginx } from './lint-nginx.js';
import { masterOfTree } from './tree-master-check.js';

/** What `config validate` found for a spec naming a hand-written tree: its lint, and nginx -t of a copy. */
export interface TreeValidateReport {
  spec: ProxySpec;
  /** The tree's main file (the spec's nginx.conf) and how many files nginx reads with it. */
  conf: string;
  fileCount: number;
  /** The lint `config lint CONF` gives, judged against the nginx here. */
  lint: LintReport;
  /** Who ran nginx -t on the copy: the running master's binary and prefix, else the installed binary. */
  testedWith: string;
  /** False when lint found an error-severity problem (nginx -t failures throw). */
  ok: boolean;
}

/**
 * `config validate` of a spec with `nginx.conf`: nothing is rendered, so what is validated is the
 * tree nginx runs. It is linted as `config lint CONF` lints it, and tested with nginx -t as an apply
 * tests it (a private copy, the master's own binary and prefix), so nothing of the tree is touched.
 * A spec whose tree is on the hosts under `proxies` is refused: those trees are not here.
 */
export async function validateAdoptedTree(
  specPath: string,
  spec: ProxySpec & { nginx: AdoptedNginxSpec },
): Promise<TreeValidateReport> {
  if (spec.proxies.length > 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${specPath} names a hand-written config on the hosts under proxies, and config validate reads a tree on this machine: config diff --spec ${specPath} shows what each host would change, and config apply tests it with nginx -t on every host before any changes`,
    );
  const tree = await readNginxTree(spec.nginx.conf);
  const lint = await lintNginxConfigFiles(tree.conf, { nginx: await findLintNginx({}) });
  const master = await masterOfTree(tree.conf, pidFileOfTree(spec.nginx, tree.config));
  const nginx = master ? { binary: master.binary, prefix: master.prefix } : { binary: findNginxBinary() };
  await testTreeCopy(tree.conf, tree.config.files, [], nginx);
  return {
    spec,
    conf: tree.conf,
    fileCount: tree.config.files.length,
    lint,
    testedWith: master
      ? `${master.binary} -p ${master.prefix}, as nginx master ${master.pid} runs it`
      : `${nginx.binary}, the installed nginx: no master runs this tree`,
    ok: !hasLintErrors(lint),
  };
}
