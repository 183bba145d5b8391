// Writes docs/settings.md from the catalog and the templates: `npm run docs:settings`.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SETTINGS } from './catalog.ts';
import { renderSettingsDocs, SETTINGS_DOCS_PATH } from './settings-docs.ts';
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from './templates.ts';

const target = path.resolve(import.meta.dirname, '../../..', SETTINGS_DOCS_PATH);
writeFileSync(target, renderSettingsDocs(SETTINGS, loadTemplates(DEFAULT_TEMPLATES_DIR)));
console.log(`Wrote ${target}`);
