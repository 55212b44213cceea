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
// ~/.cache/proxyops. Bytecode read from a file runs as this user, so the directory is checked first
// (this user's, no one else may write to it), then the entry is opened without following a symlink
// and used only when the open file is a regular file of this user that no one else may write to; an
// entry that fails this is neither used nor overwritten.
//
// An entry names the bundle's sha256, size and modification time. The sha256 comes from
// bundles.json, which the build writes next to the bundles: npm installs every file with the same
// mtime, a version bump often keeps a bundle's size, and V8 checks only the source's length, so
// without it a new version ran the old one's bytecode. Hashing each bundle at every start would cost
// more than the cache saves; a bundle that bundles.json does not list at its size is not cached.
// V8 itself refuses an entry of another V8 version or other flags, and the entry is then written
// again. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as on Node 22.
'use strict';
const Module = require('node:module');

if (Module.enableCompileCache) Module.enableCompileCache();
else if (!process.env.NODE_DISABLE_COMPILE_CACHE) cacheBundles();
require('./front.js');

function cacheBundles() {
  const fs = require('node:fs');
  const { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync } = fs;
  const { writeFileSync } = fs;
  const { basename, join } = require('node:path');
  const { Script } = require('node:vm');
  // $HOME is what os.homedir() reads first; node:os is loaded only where it is not set.
  const home = () => process.env.HOME || require('node:os').homedir();
  const dir =
    process.env.NODE_COMPILE_CACHE || join(process.env.XDG_CACHE_HOME || join(home(), '.cache'), 'proxyops');
  /** Entries to write at exit: compiled without one, or V8 refused it. */
  const toWrite = [];
  const MISSING = Symbol('no entry');
  const REFUSED = Symbol('not to be used or replaced');
  let listedBundles;
  // Our bundles are read as bytes and wrapped in the module function there, into one string that V8
  // compiles as it is: read by Node's loader and wrapped as a string, the front's source (128 KB) was
  // in V8's young generation (1 MiB at start) three times, and `--help` ran into a garbage collection.
  const [WRAP_START, WRAP_END] = Module.wrapper.map((part) => Buffer.from(part));
  const loadJs = Module._extensions['.js'];
  Module._extensions['.js'] = function loadCached(module, filename) {
    if (!filename.startsWith(__dirname + '/')) return loadJs.call(this, module, filename);
    const fd = openSync(filename, 'r');
    let stats;
    let bytes;
    try {
      stats = fstatSync(fd);
      bytes = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    const listed = bundles()[basename(filename)];
    const cacheable = listed !== undefined && listed.size === bytes.length;
    const entry = join(dir, `${basename(filename)}.${process.version}.${process.arch}.cache`);
    const key = cacheable && Buffer.from(`proxyops ${listed.sha256} ${stats.size} ${stats.mtimeMs}\n`);
    const found = cacheable ? readEntry(entry, key) : REFUSED;
    const cachedData = found === REFUSED || found === MISSING ? undefined : found;
    const wrapped = Buffer.concat([WRAP_START, bytes, WRAP_END]);
    // The shebang line of front.js is a comment to Node's loader, not to V8.
    if (bytes[0] === 0x23 && bytes[1] === 0x21) wrapped.write('//', WRAP_START.length);
    const script = new Script(wrapped.toString(), { filename, cachedData });
    if (found !== REFUSED && (cachedData === undefined || script.cachedDataRejected))
      toWrite.push({ entry, key, script });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const require = (id) => module.require(id);
    return wrapper.call(module.exports, module.exports, require, module, filename, __dirname);
  };
  process.once('exit', () => {
    if (toWrite.length === 0 || !ownDir()) return;
    for (const { entry, key, script } of toWrite) {
      // Written aside, then renamed: a run that reads it meanwhile sees the old entry or the new one.
      const aside = `${entry}.${process.pid}`;
      try {
        // 'wx': never through a file or symlink someone left at that name.
        writeFileSync(aside, Buffer.concat([key, script.createCachedData()]), { mode: 0o600, flag: 'wx' });
        renameSync(aside, entry);
      } catch {
        // A full disk or a read-only home: the next run compiles again.
      }
    }
  });

  /** bundles.json: each bundle's size and sha256, as the build wrote them; {} when unreadable. */
  function bundles() {
    if (listedBundles === undefined) {
      try {
        listedBundles = JSON.parse(readFileSync(join(__dirname, 'bundles.json'), 'utf8'));
      } catch {
        listedBundles = {};
      }
    }
    return listedBundles;
  }

  /**
   * The entry's bytecode when the entry is for this very file; MISSING when there is none or it is
   * for another (to be written); REFUSED when the directory or the entry is not safe to trust.
   */
  function readEntry(entry, key) {
    // The directory before the entry: a directory others may write to is not read at all.
    let dirStats;
    try {
      dirStats = lstatSync(dir);
    } catch (error) {
      return error.code === 'ENOENT' ? MISSING : REFUSED;
    }
    if (!dirStats.isDirectory() || !mine(dirStats)) return REFUSED;
    let fd;
    try {
      fd = openSync(entry, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      return error.code === 'ENOENT' ? MISSING : REFUSED;
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || !mine(stats)) return REFUSED;
      const data = readFileSync(fd);
      return data.subarray(0, key.length).equals(key) ? data.subarray(key.length) : MISSING;
    } catch {
      return REFUSED;
    } finally {
      closeSync(fd);
    }
  }

  /** The cache directory, made when missing; false when it is not safe to use. */
  function ownDir() {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const stats = lstatSync(dir);
      return stats.isDirectory() && mine(stats);
    } catch {
      return false;
    }
  }

  /** Owned by this user, and no other may write to it. */
  function mine(stats) {
    return stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
  }
}
