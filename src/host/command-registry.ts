// Every registered command by name and alias (lowercase), with the plugin that owns it. A name or
// alias belongs to one command; registering it again is refused with the owner's name.
import { checkArgSpecs, checkFields } from './command-args.ts';
import { CommandCooldown } from './command-cooldown.ts';
import { isChatRole } from './chat-roles.ts';
import type { ChatRole } from './chat-roles.ts';
import type { ArgSpec, CommandDefinition } from './plugin-api.ts';

const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const MAX_COOLDOWN_SECONDS = 86_400;
const COMMAND_FIELDS = ['name', 'aliases', 'description', 'args', 'role', 'cooldown', 'run'];
const COOLDOWN_FIELDS = ['global', 'user', 'bypass'];

export interface RegisteredCommand {
  plugin: string;
  name: string;
  aliases: readonly string[];
  args: readonly ArgSpec[];
  role: ChatRole;
  bypass: ChatRole | 'nobody';
  cooldown: CommandCooldown;
  run: CommandDefinition['run'];
}

function checkName(what: string, name: unknown): string {
  if (typeof name !== 'string' || !COMMAND_NAME.test(name)) {
    const rule = `${what} ${JSON.stringify(name)} must be 1 to 32 of a-z (either case), 0-9, - and _, starting with a letter or digit`;
    if (typeof name !== 'string') throw new TypeError(rule);
    // The likeliest slips: the prefix typed in, and a letter that is one (é, ß, サ) though not of a-z.
    const unprefixed = name.slice(1);
    if (/^[^A-Za-z0-9]$/u.test(name.charAt(0)) && COMMAND_NAME.test(unprefixed)) throw new TypeError(`${rule}; without the prefix: "${unprefixed}"`);
    const stray = [...name].find((char) => !/^[A-Za-z0-9_-]$/.test(char));
    throw new TypeError(stray === undefined || name.length > 32 ? rule : `${rule}; ${JSON.stringify(stray)} is not one of them`);
  }
  return name.toLowerCase();
}

function checkSeconds(what: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_COOLDOWN_SECONDS) {
    throw new TypeError(`${what} must be a number of seconds from 0 to ${MAX_COOLDOWN_SECONDS}`);
  }
  return value;
}

/**
 * What to do about a word two commands want: the second plugin's author renames theirs; the
 * streamer, who may have written neither plugin, can instead turn the first one off.
 */
function takenRemedy(name: string, word: string, plugin: string, owner: string): string {
  const rename = word === name ? `rename command ${name}` : `rename or drop the alias "${word}" of command ${name}`;
  if (owner === plugin) return `${rename} in plugin ${plugin}`;
  return `${rename} in plugin ${plugin}, or turn plugin ${owner} off in the config (plugins.${owner}.enabled: false)`;
}

export class CommandRegistry {
  readonly #byWord = new Map<string, RegisteredCommand>();

  register(plugin: string, definition: CommandDefinition): RegisteredCommand {
    if (typeof definition !== 'object' || definition === null) throw new TypeError('a command must be an object {name, run}');
    const name = checkName('command name', definition.name);
    checkFields(`command ${name}`, definition, COMMAND_FIELDS);
    if (definition.aliases !== undefined && !Array.isArray(definition.aliases)) {
      const alias: unknown = definition.aliases;
      throw new TypeError(`command ${name}: aliases must be a list of names${typeof alias === 'string' ? ` (aliases: ['${alias}'])` : ''}`);
    }
    const aliases = (definition.aliases ?? []).map((alias) => checkName(`alias of ${name}`, alias));
    if (typeof definition.run !== 'function') throw new TypeError(`command ${name}: run must be a function`);
    if (definition.description !== undefined && typeof definition.description !== 'string') {
      throw new TypeError(`command ${name}: description must be text`);
    }
    const cooldownGiven: unknown = definition.cooldown;
    if (cooldownGiven !== undefined) {
      if (typeof cooldownGiven !== 'object' || cooldownGiven === null || Array.isArray(cooldownGiven)) {
        const given = typeof cooldownGiven === 'number' ? ` (cooldown: { global: ${cooldownGiven} } or { user: ${cooldownGiven} })` : '';
        throw new TypeError(`command ${name}: cooldown must be { global, user, bypass }, in seconds${given}`);
      }
      checkFields(`command ${name}: cooldown`, cooldownGiven, COOLDOWN_FIELDS);
    }
    const args = definition.args ?? [];
    if (!Array.isArray(args)) throw new TypeError(`command ${name}: args must be a list`);
    try {
      checkArgSpecs(args);
    } catch (error) {
      throw new TypeError(`command ${name}: ${(error as Error).message}`);
    }
    const role = definition.role ?? 'everyone';
    if (!isChatRole(role)) throw new TypeError(`command ${name}: role must be broadcaster, moderator, vip, subscriber or everyone`);
    const bypass = definition.cooldown?.bypass ?? 'moderator';
    if (bypass !== 'nobody' && !isChatRole(bypass)) {
      throw new TypeError(`command ${name}: cooldown.bypass must be a role or "nobody"`);
    }
    const cooldown = new CommandCooldown(
      checkSeconds(`command ${name}: cooldown.global`, definition.cooldown?.global),
      checkSeconds(`command ${name}: cooldown.user`, definition.cooldown?.user),
    );
    const words = [name, ...aliases];
    const seen = new Set<string>();
    for (const word of words) {
      if (seen.has(word)) throw new TypeError(`command ${name}: "${word}" is listed twice`);
      seen.add(word);
      const owner = this.#byWord.get(word);
      if (owner) throw new TypeError(`command ${name}: "${word}" is already taken by command ${owner.name} of plugin ${owner.plugin}; ${takenRemedy(name, word, plugin, owner.plugin)}`);
    }
    const command: RegisteredCommand = { plugin, name, aliases, args, role, bypass, cooldown, run: definition.run };
    for (const word of words) this.#byWord.set(word, command);
    return command;
  }

  /** The command a typed word names (name or alias, any case). */
  find(word: string): RegisteredCommand | undefined {
    return this.#byWord.get(word.toLowerCase());
  }

  /** Drops every command of a plugin (its setup failed). */
  removePlugin(plugin: string): void {
    for (const [word, command] of this.#byWord) if (command.plugin === plugin) this.#byWord.delete(word);
  }
}
