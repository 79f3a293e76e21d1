/** A deliberately wrong extension (a plain object, no brand): start-up must refuse it with a clear message. */
export default { id: "broken", hooks: {} };
