import type { Command } from 'commander';
import type { Extent } from './index.js';
import { runAction } from '../run-action.js';

/**
 * Registers `proxyops api graphql-manifest --from DIR --out FILE`: the persisted-query allow-list
 * from `.graphql` files (run the API with --graphql-allow-list FILE to enforce it).
 */
export function registerGraphqlManifest(program: Command, extent: Extent = 'whole'): void {
  if (extent === 'head') return;
  const api = program.commands.find((command) => command.name() === 'api') ?? program;
  api
    .command('graphql-manifest')
    .description('Write the GraphQL allow-list manifest from the named operations in .graphql files')
    .requiredOption('--from <dir>', 'folder searched (recursively) for .graphql and .gql files')
    .requiredOption('--out <file>', 'manifest file to write (JSON)')
    .action((flags: { from: string; out: string }) =>
      runAction(async () => {
        const { writeManifest } = await import('../../api/graphql/persisted/write-manifest.js');
        const manifest = await writeManifest(flags);
        for (const operation of manifest.operations)
          process.stdout.write(`${operation.id}  ${operation.type} ${operation.name}\n`);
        process.stdout.write(`${manifest.operations.length} operations -> ${flags.out}\n`);
      }),
    );
}
