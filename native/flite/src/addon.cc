// Parla's N-API binding to Debian's libflite 2.2 (flite1-dev), linked statically with the four
// English voices it uses (kal16, slt, rms, awb).
//
// Why: the `flite` program registers its voices again for every run (~35 ms of CPU per process,
// about 1 s per 3,000 characters in ~300-character pieces). Here each voice is registered once and
// kept; a synthesis runs as an AsyncWorker on libuv's pool, off the event loop. The audio can be
// taken as the vocoder finishes it (onChunk): a stream's first sound is out after about a third of
// its first sentence's synthesis (decision #100).
//
// The audio must be the program's, sample for sample (docs/engines.md, "Flite"):
//  - Per-request settings (`--setf name=value` in the program) go on the utterance, not on the
//    shared voice: Flite links the voice's features under the utterance's (utt_init), so the
//    utterance's value wins exactly as the program's copy onto the voice does, and two requests
//    with different settings can run at once.
//  - Flite's vocoders draw their noise excitation from rand(). A fresh `flite` process starts
//    rand() at seed 1 for its one utterance; here libflite's rand() is redirected to a per-thread
//    generator restarted at seed 1 for every synthesis (glibc's random_r after initstate_r(1) is
//    glibc's rand() in a fresh process). Without it the audio would differ from the program's and
//    from one request to the next, and two threads would share one sequence.
//  - Flite's fatal errors (cst_error) call exit() unless cst_errjmp is set, and then longjmp to
//    one global jump buffer. libflite's __longjmp_chk is redirected to jump to the failing
//    thread's own buffer instead, so a Flite error fails that one request, not the node.
// The two redirections rewrite libflite's two GOT slots for rand and __longjmp_chk (the library
// is linked with BIND_NOW, so each holds glibc's address; the Debian static libraries are not
// position-independent and cannot go into an addon, where -Wl,--wrap would have done this). Each
// slot must be found exactly once, or the addon refuses to load and Parla runs the program.

#include <napi.h>
#include <setjmp.h>
#include <stdio.h>
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <string.h>
#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <flite/flite.h>
cst_voice* register_cmu_us_kal16(const char* voxdir);
cst_voice* register_cmu_us_slt(const char* voxdir);
cst_voice* register_cmu_us_rms(const char* voxdir);
cst_voice* register_cmu_us_awb(const char* voxdir);
extern jmp_buf* cst_errjmp;
}

namespace {

thread_local struct random_data tlsRandom;
thread_local char tlsRandomState[128];
// The jump target of the synthesis running on this thread (null between syntheses).
thread_local sigjmp_buf* tlsFailJump = nullptr;

void restartRand() {
  memset(&tlsRandom, 0, sizeof tlsRandom);
  initstate_r(1, tlsRandomState, sizeof tlsRandomState, &tlsRandom);
}

}  // namespace

extern "C" {
// Flite's rand(): this thread's generator (see the top of the file).
int parlaFliteRand(void) {
  if (!tlsRandom.state) restartRand();
  int32_t r = 0;
  random_r(&tlsRandom, &r);
  return r;
}

// Flite's cst_error(): back to this thread's synthesis, which reports the failure.
[[noreturn]] void parlaFliteLongjmp(jmp_buf, int) {
  if (tlsFailJump) siglongjmp(*tlsFailJump, 1);
  // Outside a synthesis (registering a voice): nothing to return to; as the program, stop.
  fprintf(stderr, "flite: fatal error outside a synthesis\n");
  abort();
}
}

namespace {

struct VoiceEntry {
  const char* name;
  cst_voice* (*reg)(const char*);
  cst_voice* voice;
};

VoiceEntry voices[] = {
    {"kal16", register_cmu_us_kal16, nullptr},
    {"slt", register_cmu_us_slt, nullptr},
    {"rms", register_cmu_us_rms, nullptr},
    {"awb", register_cmu_us_awb, nullptr},
};
std::mutex voicesLock;
jmp_buf unusedJump;

// The voice, registered on first use (once per process, under a lock: registration is not
// re-entrant); null for an unknown name.
cst_voice* voiceFor(const std::string& name) {
  std::lock_guard<std::mutex> lock(voicesLock);
  for (auto& v : voices) {
    if (name != v.name) continue;
    if (!v.voice) v.voice = v.reg(nullptr);
    return v.voice;
  }
  return nullptr;
}

struct Feature {
  std::string name;
  float value;
};

using Progress = Napi::AsyncProgressQueueWorker<int16_t>::ExecutionProgress;

// Synthesis state shared with the vocoder's streaming callback: cancellation, and where the
// samples it has finished go when the caller takes them as they come.
struct StreamState {
  const int32_t* cancel;
  const Progress* progress;  // null: the caller takes the whole wave at the end
  size_t sent;               // samples already handed over through `progress`
  std::atomic<int>* rate;    // the wave's sample rate, set before its first piece is sent
};

// Called by the vocoder (slt, awb, rms: MLSA; kal16: LPC) each time it has finished about
// min_buffsize samples, which it does not change afterwards: w->samples[start, start + size) go out.
int onStream(const cst_wave* w, int start, int size, int, cst_audio_streaming_info* asi) {
  auto* s = static_cast<StreamState*>(asi->userdata);
  if (s->cancel && __atomic_load_n(s->cancel, __ATOMIC_RELAXED) != 0) return CST_AUDIO_STREAM_STOP;
  // Only a run that continues what went out: the whole remainder is sent at the end otherwise.
  if (s->progress && size > 0 && (size_t)start == s->sent) {
    s->rate->store(w->sample_rate, std::memory_order_release);
    s->progress->Send(w->samples + start, (size_t)size);
    s->sent += (size_t)size;
  }
  return CST_AUDIO_STREAM_CONT;
}

class SynthWorker : public Napi::AsyncProgressQueueWorker<int16_t> {
 public:
  SynthWorker(Napi::Env env, std::string voice, std::string text, std::vector<Feature> feats, Napi::Int32Array cancel,
              Napi::Function onChunk)
      : Napi::AsyncProgressQueueWorker<int16_t>(env), deferred_(Napi::Promise::Deferred::New(env)), voice_(std::move(voice)),
        text_(std::move(text)), feats_(std::move(feats)) {
    if (!cancel.IsEmpty()) {
      cancelRef_ = Napi::Persistent(cancel);
      cancel_ = cancel.Data();
    }
    if (!onChunk.IsEmpty()) onChunk_ = Napi::Persistent(onChunk);
  }
  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute(const ExecutionProgress& progress) override {
    cst_voice* v = voiceFor(voice_);
    if (!v) return SetError("unknown voice " + voice_);
    restartRand();
    StreamState state{cancel_, onChunk_.IsEmpty() ? nullptr : &progress, 0, &chunkRate_};
    cst_audio_streaming_info* asi = new_audio_streaming_info();
    asi->asc = onStream;
    asi->userdata = &state;
    asi->min_buffsize = 1600;
    cst_utterance* u = new_utterance();
    sigjmp_buf fail;
    // Nothing below holds a C++ destructor across the jump: only C data, freed here or leaked
    // (a failed synthesis loses its utterance; Flite's state may be half-built).
    if (sigsetjmp(fail, 0) != 0) {
      tlsFailJump = nullptr;
      failed_ = true;
      return;
    }
    tlsFailJump = &fail;
    for (const Feature& f : feats_) feat_set_float(u->features, f.name.c_str(), f.value);
    feat_set(u->features, "streaming_info", audio_streaming_info_val(asi));
    utt_set_input_text(u, text_.c_str());
    cst_utterance* done = flite_do_synth(u, v, utt_synth);
    tlsFailJump = nullptr;
    if (!done) return SetError("flite could not synthesize the text");
    cst_wave* w = utt_wave(done);
    cancelled_ = cancel_ && __atomic_load_n(cancel_, __ATOMIC_RELAXED) != 0;
    if (w && !cancelled_) {
      rate_ = w->sample_rate;
      // What the stream has not handed over yet (all of it without onChunk).
      size_t from = state.sent < (size_t)w->num_samples ? state.sent : (size_t)w->num_samples;
      samples_.assign(w->samples + from, w->samples + w->num_samples);
    }
    // Frees the streaming info too (the utterance owns its features' values).
    delete_utterance(done);
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (failed_) {
      deferred_.Reject(Napi::Error::New(env, "flite failed (cst_error) on this text").Value());
      return;
    }
    if (cancelled_) {
      deferred_.Reject(Napi::Error::New(env, "cancelled").Value());
      return;
    }
    Napi::Int16Array out = Napi::Int16Array::New(env, samples_.size());
    if (!samples_.empty()) memcpy(out.Data(), samples_.data(), samples_.size() * sizeof(int16_t));
    Napi::Object o = Napi::Object::New(env);
    o.Set("samples", out);
    o.Set("sampleRate", Napi::Number::New(env, rate_));
    deferred_.Resolve(o);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

  // On the calling thread, in order, before the promise settles.
  void OnProgress(const int16_t* data, size_t count) override {
    if (onChunk_.IsEmpty() || count == 0) return;
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    Napi::Int16Array chunk = Napi::Int16Array::New(env, count);
    memcpy(chunk.Data(), data, count * sizeof(int16_t));
    // A throwing callback is the caller's fault; it must not stop the synthesis half-way.
    onChunk_.Value().Call({chunk, Napi::Number::New(env, chunkRate_.load(std::memory_order_acquire))});
    if (env.IsExceptionPending()) env.GetAndClearPendingException();
  }

 private:
  Napi::Promise::Deferred deferred_;
  std::string voice_;
  std::string text_;
  std::vector<Feature> feats_;
  Napi::Reference<Napi::Int32Array> cancelRef_;
  Napi::FunctionReference onChunk_;
  std::atomic<int> chunkRate_{0};
  const int32_t* cancel_ = nullptr;
  std::vector<int16_t> samples_;
  int rate_ = 0;
  bool failed_ = false;
  bool cancelled_ = false;
};

// synthesize(voice: string, text: string, features: string[] ("name=value", floats, as the
// program's --setf), cancel?: Int32Array (non-zero in [0] stops the vocoder),
// onChunk?: (samples: Int16Array, sampleRate: number) => void (the audio as the vocoder finishes it)):
//   Promise<{ samples: Int16Array, sampleRate: number }>: with onChunk, only what it was not given
Napi::Value Synthesize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() ||
      (info.Length() > 3 && !info[3].IsUndefined() && !info[3].IsTypedArray()) ||
      (info.Length() > 4 && !info[4].IsUndefined() && !info[4].IsFunction())) {
    Napi::TypeError::New(env,
                         "synthesize(voice: string, text: string, features: string[], cancel?: Int32Array, onChunk?: "
                         "(samples: Int16Array, sampleRate: number) => void)")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::vector<Feature> feats;
  Napi::Array a = info[2].As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value item = a.Get(i);
    std::string s = item.IsString() ? item.As<Napi::String>().Utf8Value() : "";
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      Napi::TypeError::New(env, "a feature is \"name=value\"").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    // atof, as the program parses --setf.
    feats.push_back({s.substr(0, eq), (float)atof(s.c_str() + eq + 1)});
  }
  Napi::Int32Array cancel;
  if (info.Length() > 3 && info[3].IsTypedArray()) {
    if (info[3].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array || info[3].As<Napi::Int32Array>().ElementLength() < 1) {
      Napi::TypeError::New(env, "cancel must be an Int32Array of at least one element").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    cancel = info[3].As<Napi::Int32Array>();
  }
  std::string text = info[1].As<Napi::String>().Utf8Value();
  if (text.find('\0') != std::string::npos) {
    Napi::TypeError::New(env, "text must not contain NUL").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Function onChunk;
  if (info.Length() > 4 && info[4].IsFunction()) onChunk = info[4].As<Napi::Function>();
  auto* w = new SynthWorker(env, info[0].As<Napi::String>().Utf8Value(), std::move(text), std::move(feats), cancel, onChunk);
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

// voices(): the voice names this build has.
Napi::Value Voices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array a = Napi::Array::New(env, sizeof voices / sizeof voices[0]);
  for (uint32_t i = 0; i < a.Length(); i++) a.Set(i, voices[i].name);
  return a;
}

// Finds libflite's loaded image and rewrites each word holding `from` in its relocated read-only
// data (the GOT, under RELRO) to `to`; returns how many it rewrote.
struct Redirect {
  void* from;
  void* to;
  int found;
};

int redirectInFlite(struct dl_phdr_info* info, size_t, void* data) {
  if (!info->dlpi_name || !strstr(info->dlpi_name, "/libflite.so")) return 0;
  auto* rs = static_cast<std::vector<Redirect>*>(data);
  long page = sysconf(_SC_PAGESIZE);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    uintptr_t end = start + ph.p_memsz;
    uintptr_t pstart = start & ~(uintptr_t)(page - 1);
    if (mprotect((void*)pstart, end - pstart, PROT_READ | PROT_WRITE) != 0) return 1;
    for (uintptr_t a = (start + 7) & ~(uintptr_t)7; a + sizeof(void*) <= end; a += sizeof(void*)) {
      void** slot = (void**)a;
      for (Redirect& r : *rs)
        if (*slot == r.from) {
          *slot = r.to;
          r.found++;
        }
    }
    mprotect((void*)pstart, end - pstart, PROT_READ);
  }
  return 1;
}

// "" when both redirections are in place; else why not.
std::string redirectFlite() {
  void* rand = dlsym(RTLD_DEFAULT, "rand");
  void* longjmpChk = dlsym(RTLD_DEFAULT, "__longjmp_chk");
  if (!rand || !longjmpChk) return "glibc's rand or __longjmp_chk not found";
  std::vector<Redirect> rs = {{rand, (void*)&parlaFliteRand, 0}, {longjmpChk, (void*)&parlaFliteLongjmp, 0}};
  dl_iterate_phdr(redirectInFlite, &rs);
  if (rs[0].found != 1 || rs[1].found != 1)
    return "libflite's rand/__longjmp_chk slots found " + std::to_string(rs[0].found) + "/" + std::to_string(rs[1].found) +
           " times, not once each";
  return "";
}

Napi::Object InitAll(Napi::Env env, Napi::Object exports) {
  static std::once_flag once;
  static std::string problem;
  std::call_once(once, [] {
    problem = redirectFlite();
    if (!problem.empty()) return;
    flite_init();
    // Non-null so cst_error() longjmps (into the redirection above) instead of calling exit().
    cst_errjmp = &unusedJump;
  });
  if (!problem.empty()) {
    Napi::Error::New(env, problem).ThrowAsJavaScriptException();
    return exports;
  }
  exports.Set("synthesize", Napi::Function::New(env, Synthesize));
  exports.Set("voices", Napi::Function::New(env, Voices));
  return exports;
}

}  // namespace

NODE_API_MODULE(parla_flite, InitAll)
