// Run as a child process by the cross-process tests: opens the same SQLite file as the running
// API (its own connection, its own process) and revokes a key or switches premium, the way
// `chatskin keys revoke` / `chatskin premium` do.
//   node admin-child-process.ts DB_PATH revoke LOGIN
//   node admin-child-process.ts DB_PATH premium LOGIN on|off
import { DEFAULT_TEMPLATES_DIR, loadTemplates } from '../../../src/service/settings/templates.ts';
import { openSqliteStore } from '../../../src/service/store/sqlite-store.ts';
import { createStyleService } from '../../../src/service/style-service.ts';

const [dbPath, command, login, state] = process.argv.slice(2);
if (dbPath === undefined || login === undefined) throw new Error('usage: DB_PATH revoke|premium LOGIN [on|off]');
const store = openSqliteStore({ path: dbPath });
try {
  const service = await createStyleService({ store, templates: loadTemplates(DEFAULT_TEMPLATES_DIR) });
  if (command === 'revoke') await service.revokeKey(login);
  else if (command === 'premium') await service.setPremium(login, state === 'on');
  else throw new Error(`unknown command ${String(command)}`);
} finally {
  await store.close();
}
