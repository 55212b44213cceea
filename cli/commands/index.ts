import type { Command } from 'commander';
import { registerApi } from './api.js';
import { registerGraphqlManifest } from './graphql-manifest.js';
import { registerCert } from './cert.js';
import { registerConfig } from './config.js';
import { registerDeploy } from './deploy.js';
import { registerDiagnose } from './diagnose.js';
import { registerUp } from './up.js';
import { registerLogs } from './logs.js';

/**
 * Every top-level command. Each module only declares its options; its work is imported lazily
 * inside the action so that `proxyops --help` loads nothing heavy.
 */
export const COMMANDS: Array<(program: Command) => void> = [
  registerApi,
  registerGraphqlManifest,
  registerCert,
  registerConfig,
  registerDiagnose,
  registerLogs,
  registerDeploy,
  registerUp,
];
