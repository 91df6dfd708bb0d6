/** An error that becomes a 4xx with body { error, message }. Throw it from services; the error handler maps it. */
export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    public readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = 'bad_request') => new HttpError(400, code, message);
export const unauthorized = (message = 'Sign-in required.', code = 'unauthorized') =>
  new HttpError(401, code, message);
export const forbidden = (message = 'You are not allowed to do this.', code = 'forbidden') =>
  new HttpError(403, code, message);
export const notFound = (message: string, code = 'not_found') => new HttpError(404, code, message);
export const conflict = (message: string, code = 'conflict') => new HttpError(409, code, message);
