import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';

/**
 * For an operation whose body is optional: no body at all is read as `{}` (every member absent). Interceptors run
 * before pipes, so the global validation pipe then checks `{}` against the DTO as usual; a body that is sent is
 * left as it is (null, an array or text are still refused).
 */
@Injectable()
export class OptionalBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<{ body?: unknown }>();
    if (request.body === undefined) request.body = {};
    return next.handle();
  }
}
