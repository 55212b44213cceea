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
    // As the API sets it: the X-Request-ID this test finds its line by is taken from loopback only.
    app.set('trust proxy', 'loopback');
    app.use(createHttpLogger(logger));
    app.get('/never', () => entered());
    app.get('/says', (req, res) => {
      req.log.info({ said: 'hello' }, 'a line of the route');
      res.json({});
    });
    app.get('/own-logger', (req, res) => {
      // Code that brings its own req.log (as pino-http does) may assign it.
      req.log = logger.child({ own: true });
      req.log.info('own logger line');
      res.json({});
    });
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

  it("a route's req.log lines carry the request's id", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/says`, { headers: { 'X-Request-ID': 'says-1' } });
    expect(res.headers.get('x-request-id')).toBe('says-1');
    expect(logLines.find((line) => line.msg === 'a line of the route')).toMatchObject({
      requestId: 'says-1',
      said: 'hello',
    });
  });

  it('req.log can be assigned', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/own-logger`);
    expect(res.status).toBe(200);
    expect(logLines.find((line) => line.msg === 'own logger line')).toMatchObject({ own: true });
  });
});
