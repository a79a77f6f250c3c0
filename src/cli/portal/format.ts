/** Plain-text rendering of portal results for a technician's terminal. */
import type { NewestDocument, SearchItemByKind, SearchKind, UnknownItem, UserEditationRequest, UserSyncResponse } from '../../portal/schemas.js';

export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h} h ${m} min` : m > 0 ? `${m} min ${s} s` : `${s} s`;
}

/** A one-line label of an item whose shape the spec does not show (exemplars, users). */
export function unknownItemLabel(item: UnknownItem): string {
  for (const key of ['name', 'text', 'title', 'barCode', 'barcode'] as const) {
    const v = item[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return JSON.stringify(item).slice(0, 100);
}

function idOf(item: UnknownItem): string {
  const id = item['id'];
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '-';
}

function docLine(d: { id: string; name: string; author?: string | null | undefined; publicationYear?: number | undefined }): string {
  const author = d.author ? ` / ${d.author}` : '';
  const year = d.publicationYear ? ` (${d.publicationYear})` : '';
  return `${d.id}  ${d.name}${author}${year}`;
}

export function searchItemLine<K extends SearchKind>(kind: K, item: SearchItemByKind[K]): string {
  // Narrow by kind: the item type follows the kind the search was made with.
  switch (kind) {
    case 'document':
      return docLine(item as SearchItemByKind['document']);
    case 'authority': {
      const a = item as SearchItemByKind['authority'];
      return `${a.id}  ${a.name}`;
    }
    case 'exemplar':
    case 'user':
      return `${idOf(item)}  ${unknownItemLabel(item)}`;
  }
}

export function newestLine(d: NewestDocument): string {
  return docLine(d);
}

export function syncLines(identifier: string, r: UserSyncResponse): string[] {
  const lines = [`sync of ${identifier}: ${r.finished ? 'finished' : 'not finished'}${r.text ? ` (${r.text})` : ''}`];
  for (const it of r.items) lines.push(`  ${it.way.padEnd(12)} ${it.item ? `${it.item.text} (id ${it.item.id})` : '(no user)'}`);
  if (r.items.length === 0) lines.push('  (no items)');
  return lines;
}

export function userLines(u: UserEditationRequest): string[] {
  const name = [u.prefixDegree, u.firstName, u.lastName, u.suffixDegree].filter(Boolean).join(' ') || '(no name)';
  const flags = [u.id !== undefined && u.id !== null ? `id ${u.id}` : 'not saved', u.kind, u.active === false ? 'inactive' : 'active'].filter(Boolean);
  const lines = [`${name} (${flags.join(', ')})`];
  for (const a of u.readerAccounts ?? [])
    lines.push(
      `  card ${a.cardNumber ?? '-'}${a.readerCategory?.text ? ` (${a.readerCategory.text})` : ''}${a.registrationExpirationDate ? `, registered until ${a.registrationExpirationDate}` : ''}`,
    );
  for (const e of u.emails ?? []) lines.push(`  email ${e.value}`);
  return lines;
}
