import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULT_PATH, resolveConfigPath } from '../../src/config/config-path.ts';

describe('resolveConfigPath', () => {
  it('the --config flag wins over CHATSKIN_CONFIG', () => {
    expect(resolveConfigPath('flag.yaml', { CHATSKIN_CONFIG: 'env.yaml' })).toBe('flag.yaml');
  });

  it('CHATSKIN_CONFIG is used without a flag', () => {
    expect(resolveConfigPath(undefined, { CHATSKIN_CONFIG: 'env.yaml' })).toBe('env.yaml');
  });

  it('falls back to the shipped config/default.yaml (absolute, present) when neither is given or they are blank', () => {
    expect(resolveConfigPath(undefined, {})).toBe(CONFIG_DEFAULT_PATH);
    expect(resolveConfigPath('', { CHATSKIN_CONFIG: '  ' })).toBe(CONFIG_DEFAULT_PATH);
    expect(isAbsolute(CONFIG_DEFAULT_PATH)).toBe(true);
    expect(existsSync(CONFIG_DEFAULT_PATH)).toBe(true);
  });
});
