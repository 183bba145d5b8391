// The page's JavaScript without a build step: the TypeScript modules the page imports, type-
// stripped with node:module's stripTypeScriptTypes (Node 24), served under one URL prefix that
// mirrors the repository layout so relative imports resolve in the browser as they do in Node.
// Only modules reachable from the entries (the overlay page's, and the not-found page's) are served, and a module that imports anything but a
// relative `.ts` file (a Node builtin, a package) is refused when the graph is built, at start.
import { readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');
export const OVERLAY_ENTRY = 'src/overlay/client/main.ts';
/** The "Overlay not found" page's script: it reloads the page once its address names an overlay. */
export const NOT_FOUND_ENTRY = 'src/overlay/client/not-found-recheck.ts';

export interface BrowserModule {
  /** Repository-relative path with `/` separators, e.g. `src/overlay/settings-css.ts`. */
  path: string;
  javascript: string;
}

// Static import/export-from and side-effect imports. Type-only imports are blank after stripping.
const IMPORT_SPECIFIER = /(?:^|[;\s])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+)["']/g;

/** Every module reachable from `entry` (repository-relative), keyed by repository-relative path. */
export function buildBrowserModuleGraph(entry = OVERLAY_ENTRY, root = PROJECT_ROOT): ReadonlyMap<string, BrowserModule> {
  const modules = new Map<string, BrowserModule>();
  const pending = [entry];
  while (pending.length > 0) {
    const modulePath = pending.pop()!;
    if (modules.has(modulePath)) continue;
    const source = readFileSync(path.join(root, modulePath), 'utf8');
    const javascript = stripTypes(source, modulePath);
    for (const match of javascript.matchAll(IMPORT_SPECIFIER)) {
      const specifier = match[1]!;
      if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
        throw new Error(`Browser module ${modulePath} imports "${specifier}": the overlay page can only load relative .ts modules of this repository.`);
      }
      if (!specifier.endsWith('.ts')) {
        throw new Error(`Browser module ${modulePath} imports "${specifier}": write the .ts suffix.`);
      }
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(modulePath), specifier));
      if (resolved.startsWith('..')) throw new Error(`Browser module ${modulePath} imports "${specifier}" outside the repository.`);
      pending.push(resolved);
    }
    modules.set(modulePath, { path: modulePath, javascript });
  }
  return modules;
}

function stripTypes(source: string, modulePath: string): string {
  try {
    return `${stripTypeScriptTypes(source, { mode: 'strip' })}\n//# sourceURL=${modulePath}\n`;
  } catch (error) {
    throw new Error(`Browser module ${modulePath} cannot be type-stripped: ${(error as Error).message}`);
  }
}
