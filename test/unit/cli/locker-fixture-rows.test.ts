// The locker table's rows from the real service's samples (test/fixtures/real-api/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApiXml } from '../../../src/client/xml';
import { lockerReleasesOf, lockerRows } from '../../../src/cli/views/locker';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../../fixtures/real-api', name), 'utf8');

describe('locker rows of the real samples', () => {
  it('user-locker__by-purchaseId: a track with neither trackNumber nor number is listed by its title alone, not ". Item 0"', () => {
    const rows = lockerRows(lockerReleasesOf(parseApiXml(fixture('user-locker__by-purchaseId__api-stub.xml')).body));
    expect(rows.map((r) => r.cells[1])).toEqual(['AdvertisePrice', '  Item 0']);
  });

  it('user-locker__page1-usageTypes-download: numbered tracks keep their numbers', () => {
    const rows = lockerRows(lockerReleasesOf(parseApiXml(fixture('user-locker__page1-usageTypes-download__api-stub.xml')).body));
    expect(rows[1].cells[1]).toBe('  1. Spiralling');
  });
});
