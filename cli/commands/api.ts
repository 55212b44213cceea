import type { Command } from 'commander';
import type { Extent } from './index.js';
import { API_DEFAULTS, API_OPTIONS } from '../../api/defaults.js';
import { runAction } from '../run-action.js';

/** `proxyops api`: runs the API (embedded PGlite unless DATABASE_URL); `proxyops api token`: a dev token. */
export function registerApi(program: Command, extent: Extent = 'whole'): void {
  const api = program
    .command('api')
    .description('Run the HTTP API (embedded PostgreSQL unless DATABASE_URL is set; Redis when REDIS_URL is)')
    .option('--seed', 'load demo data: an admin, four users and their orders')
    .option('--data-dir <dir>', 'keep the embedded database in this directory (default: in memory)');
  for (const option of API_OPTIONS)
    api.option(
      `${option.flag} <${option.kind === 'integer' ? 'n' : 'value'}>`,
      `${option.description} [env ${option.env}, default ${String(API_DEFAULTS[option.key])}]`,
    );
  api.action(async (flags: Record<string, unknown>) => {
    let serving = false;
    await runAction(async () => {
      const { resolveApiConfig } = await import('../../api/defaults.js');
      const { startApiServer } = await import('../../api/server.js');
      const config = resolveApiConfig(flags);
      const running = await startApiServer({
        config,
        ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
        ...(typeof flags.dataDir === 'string' ? { dataDir: flags.dataDir } : {}),
        ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
        seed: flags.seed === true,
      });
      serving = true;
      await running.done;
      return 0;
    });
    // Once stopped, leftover handles (driver timers) must not hold the process open.
    if (serving) process.exit(process.exitCode ?? 0);
  });
  if (extent === 'head') return;

  api
    .command('openapi')
    .description('Print the OpenAPI 3.1 document the API serves at /openapi.json')
    .option('--out <file>', 'write it to this file instead of stdout')
    .action(async (flags: { out?: string }) => {
      await runAction(async () => {
        const { writeOpenApi } = await import('../../api/http/write-openapi.js');
        await writeOpenApi(flags.out);
      });
    });

  api
    .command('token')
    .description('Print a development bearer token (signed with PROXYOPS_JWT_SECRET or the dev default)')
    .requiredOption(
      '--user <id>',
      'user id the token speaks for (the seed admin is 00000000-0000-4000-8000-000000000001)',
    )
    .option('--role <role>', 'user or admin', 'user')
    .option('--ttl <seconds>', 'lifetime in seconds', '43200')
    .action(async (flags: { user: string; role: string; ttl: string }) => {
      await runAction(async () => {
        const { createTokenCommand } = await import('../../api/auth/token-command.js');
        process.stdout.write(`${await createTokenCommand(flags)}\n`);
      });
    });
}
