/** The one conflict error: a 409 said with the holder's id and the ways out (kind.ts, nameTaken). */
import { CloudInfraError, nameErrorClass } from "../api/errors";

export class AlreadyExistsError extends CloudInfraError {
  static {
    nameErrorClass(AlreadyExistsError, "AlreadyExistsError");
  }
}
