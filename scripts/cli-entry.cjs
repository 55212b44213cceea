#!/usr/bin/env node
// The `proxyops` binary: scripts/bundle-cli.mjs copies this file to dist/cli/main.js. It turns on a
// compile cache for the CLI's bundles, then requires the front (dist/cli/front.js).
//
// Node 22.1+ has one (`module.enableCompileCache`). Node 20 has none, and there parsing and compiling
// the front and a command's bundle was the largest part of a short run above a bare `node -e ''`
// (bench:cli; a one-line `logs stats`: 640 M instructions against 500 M, 580 M with this cache). So
// on Node 20 each bundle of dist/cli is compiled with V8's code cache: the bytecode of every function
// the run compiled is written, when the process exits, to a file per bundle, and the next run starts
// from it. Only our bundles (this directory) are cached, and they use nothing of `require` but the
// call (bundle-cli.mjs checks), so the wrapper below needs no more of Node's loader.
//
// The cache lives in NODE_COMPILE_CACHE when set (as on Node 22), else $XDG_CACHE_HOME/proxyops or
// ~/.cache/proxyops; it is used only when the directory is this user's and no one else may write to
// it (bytecode read from a file runs as this user). An entry names the bundle's size and modification
// time: a rebuilt bundle is compiled afresh and its entry replaced; V8 itself refuses an entry of
// another V8 version or other flags. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as on Node 22.
'use strict';
const Module = require('node:module');

if (Module.enableCompileCache) Module.enableCompileCache();
else if (!process.env.NODE_DISABLE_COMPILE_CACHE) cacheBundles();
require('./front.js');

function cacheBundles() {
  const { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
  const { homedir } = require('node:os');
  const { basename, join } = require('node:path');
  const { Script } = require('node:vm');
  const dir =
    process.env.NODE_COMPILE_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'proxyops');
  /** Entries to write at exit: compiled without one, or V8 refused it. */
  const toWrite = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileCached(content, filename) {
    if (!filename.startsWith(__dirname + '/')) return compile.call(this, content, filename);
    const stats = statSync(filename);
    const entry = join(dir, `${basename(filename)}.${process.version}.${process.arch}.cache`);
    const key = Buffer.from(`proxyops ${stats.size} ${stats.mtimeMs}\n`);
    const cachedData = readEntry(entry, key);
    // The shebang line of front.js is a comment to Node's loader, not to V8.
    const source = content.startsWith('#!') ? '//' + content.slice(2) : content;
    const script = new Script(Module.wrap(source), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) toWrite.push({ entry, key, script });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = (id) => this.require(id);
    return wrapper.call(this.exports, this.exports, require, this, filename, __dirname);
  };
  process.once('exit', () => {
    if (toWrite.length === 0 || !ownDir()) return;
    for (const { entry, key, script } of toWrite) {
      // Written aside, then renamed: a run that reads it meanwhile sees the old entry or the new one.
      const aside = `${entry}.${process.pid}`;
      try {
        writeFileSync(aside, Buffer.concat([key, script.createCachedData()]), { mode: 0o600 });
        renameSync(aside, entry);
      } catch {
        // A full disk or a read-only home: the next run compiles again.
      }
    }
  });

  /** The entry's bytecode when the entry is for this very file, else undefined. */
  function readEntry(entry, key) {
    let data;
    try {
      data = readFileSync(entry);
    } catch {
      return undefined;
    }
    if (!data.subarray(0, key.length).equals(key) || !safe(lstatSync(dir))) return undefined;
    return data.subarray(key.length);
  }

  /** The cache directory, made when missing; false when it is not safe to use. */
  function ownDir() {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      return safe(lstatSync(dir));
    } catch {
      return false;
    }
  }

  /** A directory of this user that no other may write to. */
  function safe(stats) {
    return stats.isDirectory() && stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
  }
}
