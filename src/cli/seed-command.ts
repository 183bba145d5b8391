// chatskin seed FILE: applies a YAML fixture idempotently, prints the stored ids as one JSON object.
import type { CliOptions } from '../main.ts';
import { applySeed } from '../service/seed.ts';
import { parseSeedFixture, readSeedFile, SeedFixtureError } from '../service/seed-fixture.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../service/settings/templates.ts';
import { createTemplateCatalog } from '../service/template-catalog.ts';
import { loadCliConfig, withService, requireArgs } from './cli-context.ts';
import { CliError, shownArg } from './cli-error.ts';
import { printAnswer } from './print.ts';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [file] = requireArgs(args, 1, 'chatskin seed FILE [--config FILE]');
  loadCliConfig(options);
  // Read and checked before the database is opened: a fixture that is missing, not YAML or
  // invalid made the store (and its folder) at store.path all the same, then was refused.
  let fixture: unknown;
  try {
    fixture = readSeedFile(file!);
    parseSeedFixture(fixture, createTemplateCatalog(loadTemplates(DEFAULT_TEMPLATES_DIR)), file);
  } catch (error) {
    if (error instanceof SeedFixtureError) throw new CliError(fixtureRefusal(file!, error));
    throw error;
  }
  const result = await withService(options, async (service) => {
    try {
      return await applySeed(service, fixture, file);
    } catch (error) {
      if (error instanceof SeedFixtureError) throw new CliError(fixtureRefusal(file!, error));
      if (error instanceof Error && /^Seed/.test(error.name)) throw new CliError(error.message);
      throw error;
    }
  }, { createStore: true });
  await printAnswer(`${JSON.stringify(result)}\n`, `the fixture ${file} was applied`);
}

/** One problem on one line; several as a list under a headline, as an invalid config's. */
function fixtureRefusal(file: string, error: SeedFixtureError): string {
  return error.problems.length === 1 ? `Invalid seed fixture ${shownArg(file)}: ${shownArg(error.problems[0]!)}` : error.message;
}
