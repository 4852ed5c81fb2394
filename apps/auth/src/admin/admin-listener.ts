import { createServer, IncomingMessage, Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { listenOn } from '@dtp/service-kit';

/** Marks a request that came in through the admin listener (ADMIN_PORT). */
const VIA_ADMIN_LISTENER = Symbol('dtp.viaAdminListener');

type Marked = IncomingMessage & { [VIA_ADMIN_LISTENER]?: true };

const pathOf = (url: string | undefined) => (url ?? '/').split('?', 1)[0];
const isAdminPath = (path: string) => path === '/admin' || path.startsWith('/admin/');
const isHealthPath = (path: string) => path.startsWith('/health/');

/**
 * With ADMIN_PORT set, the admin API (`/admin/*`) is answered only on that port, and that port answers nothing but
 * `/admin/*` and `/health/*`: the public port (the one the Service and the Ingress reach) answers `/admin/*` with
 * the same 404 as any unknown path. Without ADMIN_PORT (`npm start`, the tests) nothing changes: both are on PORT.
 *
 * One Fastify instance serves both listeners (the admin listener hands its requests to `fastify.routing`), so the
 * admin API keeps the kit's hooks, error filter, logs and metrics, and the service keeps one database pool.
 * Registered before the routes are mapped (createHttpApp's `configure`).
 */
export function registerAdminSeparation(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const path = pathOf(request.url);
    const viaAdmin = (request.raw as Marked)[VIA_ADMIN_LISTENER] === true;
    if (viaAdmin ? !isAdminPath(path) && !isHealthPath(path) : isAdminPath(path)) {
      // Nest's own answer to a path that has no route, so the public port does not even reveal that /admin exists.
      void reply.status(404).send({ message: `Cannot ${request.method} ${path}` });
      return;
    }
    done();
  });
}

/** Starts the admin listener on `port` (0: any free port) once the app is listening; resolves to it and its URL. */
export async function startAdminListener(fastify: FastifyInstance, port: number, host: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    (req as Marked)[VIA_ADMIN_LISTENER] = true;
    fastify.routing(req, res);
  });
  return { server, url: await listenOn(server, port, host) };
}
