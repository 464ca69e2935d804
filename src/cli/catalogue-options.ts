// Options shared by the catalogue commands, checked before anything is sent.
import { UsageError } from './errors';
import type { OptionDef } from './command';

export const USAGE_TYPES = ['download', 'subscriptionstreaming', 'adsupportedstreaming'] as const;

export interface CatalogueFlags {
  usageTypes?: string;
  type?: string;
  packages?: string;
  imageSize?: string;
}

export const USAGE_TYPES_OPTION: OptionDef = {
  flags: '--usage-types <list>',
  description: `comma-separated: ${USAGE_TYPES.join(', ')}`,
  default: 'download',
  complete: USAGE_TYPES,
  list: true,
};

/** --type, one of `types` (any case), or a usage error. */
export function typeOption(types: readonly string[]): OptionDef {
  return {
    flags: '--type <type>',
    description: `release type filter: ${types.join(', ')}`,
    complete: types,
    parse: (v) => {
      const t = v.toLowerCase();
      if (!types.includes(t)) throw new UsageError(`--type must be one of ${types.join(', ')}, got '${v}'`);
      return t;
    },
  };
}

export function catalogueFilters(flags: CatalogueFlags): {
  usageTypes: string[];
  type?: string;
  packageIds?: number[];
  imageSize?: number;
} {
  const usageTypes = (flags.usageTypes ?? 'download')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (usageTypes.length === 0) throw new UsageError('--usage-types needs at least one usage type');
  for (const u of usageTypes) {
    if (!(USAGE_TYPES as readonly string[]).includes(u)) {
      throw new UsageError(`unknown usage type '${u}'`, `use one or more of ${USAGE_TYPES.join(', ')}`);
    }
  }
  let packageIds: number[] | undefined;
  if (flags.packages !== undefined) {
    const parts = flags.packages.split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.length === 0 || parts.some((p) => !/^[1-9]\d{0,9}$/.test(p))) {
      throw new UsageError(`--packages must be comma-separated package ids, got '${flags.packages}'`);
    }
    packageIds = parts.map(Number);
  }
  let imageSize: number | undefined;
  if (flags.imageSize !== undefined) {
    if (!/^[1-9]\d{0,4}$/.test(flags.imageSize.trim())) throw new UsageError(`--image-size must be a width in pixels, got '${flags.imageSize}'`);
    imageSize = Number(flags.imageSize.trim());
  }
  const type = flags.type ? flags.type.charAt(0).toUpperCase() + flags.type.slice(1) : undefined;
  return { usageTypes, type, packageIds, imageSize };
}
