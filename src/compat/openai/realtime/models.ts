// Which Parla model a Realtime transcription session runs on. The socket's URL names a model
// (the `openai` package always sends `?model=`): a transcription model (gpt-4o-transcribe,
// whisper-1, a Parla STT id) is taken as the session's; a speech-to-speech model (gpt-realtime...)
// or none (`?intent=transcription`) starts the session on the default below until its
// session.update names one.

/** The transcription model of a session that names none: OpenAI's current transcription model. */
export const DEFAULT_TRANSCRIPTION_MODEL = 'gpt-4o-transcribe';
