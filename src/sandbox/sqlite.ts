// Every SQLite connection and statement of the sandbox is made here, and none is ever left to the
// garbage collector.
//
// better-sqlite3 12's connections and statements are node::ObjectWrap objects. From Node 24.19 on
// (and in a better-sqlite3 compiled or prebuilt against its headers) an ObjectWrap's destructor
// asks for the current Node environment, which a collection that V8 runs outside JavaScript (an
// idle-time or background GC) does not have: Node then aborts the process (`Assertion failed:
// (env) != nullptr` in RemoveEnvironmentCleanupHook, exit 134), whatever the command was doing.
// Seen with the built-in sandbox under Node 24.21: `mcat release tracks 1` aborted before it
// printed anything. (better-sqlite3 13 is built on Node-API and has no such destructor, but it
// needs Node 22, and mcat runs on 20.)
//
// So a connection opened here is kept, closed or not, until the process ends, and each statement
// is prepared once per connection and SQL text and kept with it (better-sqlite3's own transaction
// statements are cached on the connection); PRAGMAs run through exec(), which makes no statement
// object. At exit Node deletes what is left itself, with its environment still there. What this
// keeps is bounded by the connections a process opens (a CLI run: two) and the distinct SQL texts
// (fixed in the code). ESLint refuses `new Database`, `.prepare` and `.pragma` elsewhere in
// src/sandbox.
import Database from 'better-sqlite3';

export type Connection = Database.Database;
export type Statement = Database.Statement;

const kept = new Map<Connection, Map<string, Statement>>();

/** Opens a connection that is never collected (see above); close() it as usual. */
export function openConnection(file: string, options?: Database.Options): Connection {
  const db = new Database(file, options);
  kept.set(db, new Map());
  return db;
}

/** The statement for `sql` on `db`, prepared the first time and kept with the connection. */
export function prepared(db: Connection, sql: string): Statement {
  let own = kept.get(db);
  if (!own) kept.set(db, (own = new Map()));
  let stmt = own.get(sql);
  if (!stmt) own.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** Sets a PRAGMA (its result, if any, unread): no statement object is made. */
export function pragma(db: Connection, text: string): void {
  db.exec(`PRAGMA ${text}`);
}
