// A view's columns written against the type of its items. The output layer's Column takes an
// unknown item (View.items gives it unknown[]); a view knows what its items() returns, so its
// columns read them typed, and this is the one place that says so to the compiler.
import type { Column, Style } from '../../output/types';

export interface ColumnOf<T> extends Omit<Column, 'get' | 'value' | 'style'> {
  get?: (item: T) => unknown;
  value?: (item: T) => unknown;
  style?: Style | ((item: T) => Style | undefined);
}

/** Columns over the items a view's items() returns (the output layer hands each column only those). */
export function columnsOf<T>(columns: ColumnOf<T>[]): Column[] {
  return columns as Column[];
}
