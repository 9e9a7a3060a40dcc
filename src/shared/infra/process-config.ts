import { loadConfig, type Config } from '../../config';
import type { Logger } from './logger';
import {
  describeRuntimeSecrets,
  ensureRuntimeSecrets,
  runtimeSecretsFields,
  type RuntimeSecrets,
} from './runtime-secrets';

export interface ProcessConfig {
  config: Config;
  /** Present when this process read or generated secrets in RUNTIME_DIR/secrets. */
  secrets: RuntimeSecrets | undefined;
}

/**
 * The config of the API or the worker started on its own (`npm run start:api`, docker compose).
 * Only GENERATE_SECRETS=true lets such a process make secrets: several of them on different
 * machines would each make their own, and a webhook encrypted by one could not be signed by the
 * other. `npm start` makes them itself and hands them down in the environment.
 */
export function loadProcessConfig(env: NodeJS.ProcessEnv): ProcessConfig {
  const config = loadConfig(env);
  if (config.newcomer.generateSecrets !== true) return { config, secrets: undefined };
  const secrets = ensureRuntimeSecrets(config.runtimeDir, env);
  return { config: loadConfig({ ...env, ...secrets.env }), secrets };
}

/** Says, in one line, which secrets came from RUNTIME_DIR/secrets (never their values). */
export function logRuntimeSecrets(logger: Logger, secrets: RuntimeSecrets | undefined): void {
  const line = secrets && describeRuntimeSecrets(secrets);
  if (line && secrets) logger.info(runtimeSecretsFields(secrets), line);
}
