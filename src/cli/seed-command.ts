// chatskin seed FILE: applies a YAML fixture idempotently, prints the stored ids as one JSON object.
import type { CliOptions } from '../main.ts';
import { applySeed } from '../service/seed.ts';
import { readSeedFile, SeedFixtureError } from '../service/seed-fixture.ts';
import { withService, requireArgs } from './cli-context.ts';
import { CliError } from './cli-error.ts';
import { errorText } from '../host/error-text.ts';
import { printAnswer } from './print.ts';

export async function run(args: string[], options: CliOptions): Promise<void> {
  const [file] = requireArgs(args, 1, 'chatskin seed FILE [--config FILE]');
  const result = await withService(options, async (service) => {
    let fixture: unknown;
    try {
      fixture = readSeedFile(file!);
    } catch (error) {
      throw new CliError(error instanceof SeedFixtureError ? fixtureRefusal(file!, error) : errorText(error));
    }
    try {
      return await applySeed(service, fixture, file);
    } catch (error) {
      if (error instanceof SeedFixtureError) throw new CliError(fixtureRefusal(file!, error));
      if (error instanceof Error && /^Seed/.test(error.name)) throw new CliError(error.message);
      throw error;
    }
  });
  await printAnswer(`${JSON.stringify(result)}\n`, `the fixture ${file} was applied`);
}

/** One problem on one line; several as a list under a headline, as an invalid config's. */
function fixtureRefusal(file: string, error: SeedFixtureError): string {
  return error.problems.length === 1 ? `Invalid seed fixture ${file}: ${error.problems[0]}` : error.message;
}
