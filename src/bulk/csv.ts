// RFC 4180 CSV records with the line each record starts on. Quoted fields may hold commas,
// doubled quotes and line breaks; CRLF and LF both end a record.

export interface CsvRecord {
  line: number;
  fields: string[];
  /** which fields were quoted (an empty quoted field is still a value) */
  quoted: boolean[];
}

export interface CsvResult {
  records: CsvRecord[];
  errors: { line: number; message: string }[];
}

export function parseCsv(text: string): CsvResult {
  const records: CsvRecord[] = [];
  const errors: { line: number; message: string }[] = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const recLine = line;
    const fields: string[] = [];
    const quoted: boolean[] = [];
    let bad: string | undefined;
    // one record
    for (;;) {
      let value = '';
      let wasQuoted = false;
      if (text[i] === '"') {
        wasQuoted = true;
        i++;
        let closed = false;
        while (i < n) {
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            closed = true;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        if (!closed) {
          bad ??= 'unterminated quoted field (truncated?)';
          break;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          bad ??= 'text after a closing quote (a quote inside a field must be doubled)';
          while (i < n && text[i] !== ',' && text[i] !== '\n') i++;
        }
      } else {
        const start = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) i++;
        value = text.slice(start, i);
        if (value.includes('"')) bad ??= 'a quote inside an unquoted field (quote the whole field and double the quote)';
        if (value.includes('\r')) bad ??= 'a bare carriage return inside an unquoted field';
      }
      fields.push(value);
      quoted.push(wasQuoted);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    // end of record
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (text[i] === '\n') i++;
    line++;
    if (fields.length === 1 && fields[0] === '' && !quoted[0]) continue; // blank line
    if (bad) errors.push({ line: recLine, message: bad });
    else records.push({ line: recLine, fields, quoted });
  }
  return { records, errors };
}
