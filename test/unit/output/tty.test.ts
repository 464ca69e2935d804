import { describe, expect, it } from 'vitest';
import { colorEnabled, terminalWidth } from '../../../src/output/tty';

describe('colorEnabled', () => {
  const cases: [string, { isTTY: boolean; env: Record<string, string>; flag?: boolean }, boolean][] = [
    ['a TTY', { isTTY: true, env: {} }, true],
    ['a pipe', { isTTY: false, env: {} }, false],
    ['NO_COLOR on a TTY', { isTTY: true, env: { NO_COLOR: '1' } }, false],
    ['empty NO_COLOR is not set', { isTTY: true, env: { NO_COLOR: '' } }, true],
    ['TERM=dumb on a TTY', { isTTY: true, env: { TERM: 'dumb' } }, false],
    ['--no-color on a TTY', { isTTY: true, env: {}, flag: false }, false],
    ['--color (default true) on a pipe', { isTTY: false, env: {}, flag: true }, false],
    ['FORCE_COLOR on a pipe', { isTTY: false, env: { FORCE_COLOR: '1' } }, true],
    ['FORCE_COLOR with TERM=dumb', { isTTY: false, env: { FORCE_COLOR: '1', TERM: 'dumb' } }, true],
    ['empty FORCE_COLOR forces', { isTTY: false, env: { FORCE_COLOR: '' } }, true],
    ['FORCE_COLOR=0 on a TTY', { isTTY: true, env: { FORCE_COLOR: '0' } }, false],
    ['FORCE_COLOR and --no-color', { isTTY: true, env: { FORCE_COLOR: '1' }, flag: false }, false],
    ['FORCE_COLOR and NO_COLOR', { isTTY: true, env: { FORCE_COLOR: '1', NO_COLOR: '1' } }, false],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(colorEnabled(input)).toBe(expected);
  });
});

describe('terminalWidth', () => {
  it('uses COLUMNS, then the terminal, then 80', () => {
    expect(terminalWidth({ columns: 132 }, { COLUMNS: '90' })).toBe(90);
    expect(terminalWidth({ columns: 132 }, {})).toBe(132);
    expect(terminalWidth({}, { COLUMNS: '90' })).toBe(90);
    expect(terminalWidth({ columns: 132 }, { COLUMNS: 'wide' })).toBe(132);
    expect(terminalWidth({}, { COLUMNS: 'wide' })).toBe(80);
    expect(terminalWidth(undefined, {})).toBe(80);
    expect(terminalWidth({ columns: 5 }, {})).toBe(20);
  });
});
