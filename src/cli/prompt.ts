// Reading credentials from people and scripts: a prompt on the terminal (secrets not echoed),
// or a few lines from standard input. Never from flags, never echoed, never logged.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './errors';
import { InterruptedError } from './errors';
import { clean } from '../output/clean';
import { promptStreams } from '../output/streams';

const MAX_LINES_BYTES = 64 * 1024;

/**
 * Up to `max` lines from a stream: stops reading after the `max`-th line ending (what follows is
 * left unread), or at the end of input. CRLF and a missing final newline are tolerated. Text that
 * is not UTF-8 is refused (a usage error naming `from`), never decoded into U+FFFD and saved.
 */
export async function readLines(input: Readable, max: number, from = 'standard input'): Promise<string[]> {
  const chunks: Buffer[] = [];
  let length = 0;
  let seen = 0;
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array);
    // a newline byte is never part of a multi-byte UTF-8 character: lines end at each 0x0a
    for (let at = buf.indexOf(0x0a); at !== -1 && seen < max; at = buf.indexOf(0x0a, at + 1)) {
      if (++seen === max) length += at + 1;
    }
    chunks.push(buf);
    if (seen >= max) break;
    length += buf.length;
    // keys and secrets are short lines: an endless one (/dev/zero) is not read for ever
    if (length > MAX_LINES_BYTES) {
      throw new UsageError(`${from}: more than 64 KiB before the ${max} lines ended; nothing saved`, 'give the consumer key, consumer secret, token and token secret, one per line');
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks).subarray(0, seen >= max ? length : undefined));
  } catch {
    throw new UsageError(`${from}: the input is not valid UTF-8 text; nothing saved`, 'give the values as UTF-8 text, one per line');
  }
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines.slice(0, max).map((l) => l.replace(/\r$/, ''));
}

export interface Question {
  label: string;
  hidden?: boolean;
  /** asked only when this returns true, given the answers so far */
  when?: (answers: string[]) => boolean;
}

/**
 * Asks each question on the terminal (prompts on `output`, normally stderr); hidden answers are
 * not echoed. readline draws the line itself: what it writes is the labels (cleaned here) and
 * the user's own keystrokes.
 */
export async function ask(questions: Question[], io: { input: Readable; output: Writable } = promptStreams()): Promise<string[]> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: true });
  let muted = false;
  // readline echoes through _writeToOutput: silenced while a secret is typed
  const internal = rl as unknown as { _writeToOutput(s: string): void };
  const write = internal._writeToOutput.bind(rl);
  internal._writeToOutput = (s: string) => {
    if (!muted) write(s);
  };
  const answers: string[] = [];
  try {
    for (const q of questions) {
      if (q.when && !q.when(answers)) {
        answers.push('');
        continue;
      }
      answers.push(await askOne(rl, write, q, (m) => (muted = m)));
    }
  } finally {
    muted = false;
    rl.close();
  }
  return answers;
}

function askOne(rl: ReturnType<typeof createInterface>, echo: (s: string) => void, q: Question, mute: (m: boolean) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const onClose = () => reject(new UsageError('no answer: nothing saved'));
    const onSigint = () => {
      echo('\n');
      rl.off('close', onClose);
      reject(new InterruptedError('interrupted: nothing saved'));
    };
    rl.once('close', onClose);
    rl.once('SIGINT', onSigint);
    // the prompt is written (echo on) as the question is asked; echo goes off for a secret's keystrokes
    mute(false);
    rl.question(clean(q.label, 'line'), (answer) => {
      mute(false);
      rl.off('close', onClose);
      rl.off('SIGINT', onSigint);
      // the Enter of a hidden answer was swallowed with the rest of it
      if (q.hidden) echo('\n');
      resolve(answer.trim());
    });
    mute(Boolean(q.hidden));
  });
}
