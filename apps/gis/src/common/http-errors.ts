import { HttpException, HttpStatus } from '@nestjs/common';
import { HttpErrorWithHeaders } from '@dtp/service-kit';

/** A handler's answer: a status and the exact body. */
export interface Answer<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string>;
}

/** Returns the body of a 2xx answer, throws any other as an HttpException whose body is sent verbatim. */
export function unwrap<T>(answer: Answer<T>): T {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  if (answer.headers) throw new HttpErrorWithHeaders(answer.body as Record<string, unknown>, answer.status, answer.headers);
  throw new HttpException(answer.body as Record<string, unknown>, answer.status);
}

export const notFound = (detail: string): Answer<{ detail: string }> => ({ status: HttpStatus.NOT_FOUND, body: { detail } });
