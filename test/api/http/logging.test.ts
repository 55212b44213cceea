import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpLogger } from '../../../api/http/logging.js';
import { captureLogs } from '../support/harness.js';

// The access line alone, on a bare app: a route nothing reads the client address on before it.
describe('access log middleware', () => {
  const { logger, logLines } = captureLogs();
  let server: Server;
  let port: number;
  let entered: () => void = () => undefined;

  beforeAll(async () => {
    const app = express();
    // As the API sets it: the id below comes from a loopback peer, which counts as the proxy.
    app.set('trust proxy', 'loopback');
    app.use(createHttpLogger(logger));
    app.get('/never', () => entered());
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a request the client left still names the client address', async () => {
    const id = `left-${Date.now()}`;
    const reached = new Promise<void>((resolve) => (entered = resolve));
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`GET /never HTTP/1.1\r\nHost: x\r\nX-Request-ID: ${id}\r\n\r\n`);
    await reached;
    socket.destroy();
    await expect
      .poll(() => logLines.find((line) => line.requestId === id))
      .toMatchObject({
        msg: 'request aborted',
        req: { method: 'GET', url: '/never', remoteAddress: '127.0.0.1' },
        // No headers went out: no status to report (not Express's default 200).
        res: { statusCode: null },
      });
  });
});
