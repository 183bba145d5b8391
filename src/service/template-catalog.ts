// The templates loaded from config, held in memory for cheap lookups, and their sync into the
// store's `templates` table at start-up.
import type { Template } from './settings/templates.ts';
import type { Store } from './store/store.ts';

/** The template a new account's default overlay uses, when config has it. */
export const FALLBACK_TEMPLATE_SLUG = 'bubbles';

export interface TemplateCatalog {
  readonly all: readonly Template[];
  /** Throws when the id is unknown: start-up sync guarantees every stored id is in config. */
  byId(id: number): Template;
  findBySlug(slug: string): Template | undefined;
  /** `bubbles` when config has it, else the template with the lowest id. */
  readonly fallback: Template;
}

export function createTemplateCatalog(templates: readonly Template[]): TemplateCatalog {
  if (templates.length === 0) throw new Error('The overlay style service needs at least one template.');
  const byId = new Map(templates.map((t) => [t.id, t]));
  const bySlug = new Map(templates.map((t) => [t.slug, t]));
  const sorted = [...templates].sort((a, b) => a.id - b.id);
  return {
    all: Object.freeze(sorted),
    byId(id) {
      const template = byId.get(id);
      if (template === undefined) throw new Error(`Template id ${id} is stored but not defined in the templates config.`);
      return template;
    },
    findBySlug: (slug) => bySlug.get(slug),
    fallback: bySlug.get(FALLBACK_TEMPLATE_SLUG) ?? sorted[0]!,
  };
}

/**
 * Writes the configured templates into the store (insert or update by id). Refuses, naming
 * them, when stored overlays or skins use a template id that config no longer defines.
 */
export async function syncTemplates(store: Store, catalog: TemplateCatalog): Promise<void> {
  await store.transaction(async (tx) => {
    for (const t of catalog.all) await tx.upsertTemplate({ id: t.id, slug: t.slug, name: t.name, description: t.description });
    const configured = new Set(catalog.all.map((t) => t.id));
    const missing = (await tx.listTemplateIdsInUse()).filter((id) => !configured.has(id));
    if (missing.length > 0) {
      const stored = new Map((await tx.listTemplates()).map((t) => [t.id, t.slug]));
      const names = missing.map((id) => `${id} (${stored.get(id) ?? 'unknown slug'})`).join(', ');
      throw new Error(
        `The database has overlays or skins on template id ${names}, which the templates config does not define. `
        + 'Restore that template file (same id and slug) or use another database.',
      );
    }
  });
}
