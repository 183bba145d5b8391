// Which config file to read: --config, else $CHATSKIN_CONFIG, else the shipped default.
import { fileURLToPath } from 'node:url';

/** config/default.yaml of this package (absolute, so it does not depend on the working directory). */
export const CONFIG_DEFAULT_PATH = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));

export function resolveConfigPath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env.CHATSKIN_CONFIG;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv;
  return CONFIG_DEFAULT_PATH;
}
