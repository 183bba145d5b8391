// One `## ` section of a markdown document, for tests that hold docs to the code they describe.
import { expect } from 'vitest';

/** From the heading line to the next `## ` heading (or the end); fails the test if the heading is missing. */
export function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + heading.length + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}
