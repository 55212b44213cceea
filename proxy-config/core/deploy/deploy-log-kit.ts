import { createLogReaderKit, presetFormat, type LogReaderKit } from '../logs/log-format-presets.js';

/**
 * The reader of the access log a deploy watches: proxyops' current format, and for a line it cannot
 * read the format before it (without the instance, `ui=`). nginx logs in the format of the config it
 * runs: after an upgrade of proxyops that is the older one until a config is applied (a deploy behind
 * slots applies none), and the old workers keep it after a reload. Read with the current format
 * alone, those lines were skipped: an empty baseline (every 4xx and 5xx then counts as a rise) and,
 * behind slots, a watch that saw no request at all.
 */
export function deployLogKit(format: 'text' | 'json'): LogReaderKit {
  const json = format === 'json';
  const current = createLogReaderKit(presetFormat(json ? 'proxyops-json' : 'proxyops'));
  const previous = createLogReaderKit(presetFormat(json ? 'proxyops-json-1' : 'proxyops-1'));
  return {
    ...current,
    createReader() {
      const now = current.createReader();
      const before = previous.createReader();
      return {
        // The older reader sets every field the current one does, the instance included ('').
        read: (text, start, end, facts) =>
          now.read(text, start, end, facts) || before.read(text, start, end, facts),
        reset() {
          now.reset();
          before.reset();
        },
      };
    },
  };
}
