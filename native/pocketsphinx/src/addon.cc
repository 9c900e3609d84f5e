// Parla's N-API binding to Debian's libpocketsphinx (0.8+5prealpha API).
//
// One Decoder wraps one ps_decoder_t. Heavy calls (init, process, end of utterance, whole-file
// decoding) run as AsyncWorkers on the libuv pool so the event loop stays free. A decoder is not
// thread-safe: the JS wrapper (src/engines/pocketsphinx/decoder.ts) queues calls per decoder, and
// this layer refuses a call while another is in flight ("decoder busy") as a second guard.
// Arguments are checked strictly: a wrong type throws a TypeError, never crashes the process.

#include <napi.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/ngram_model.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/fsg_model.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Word {
  std::string text;
  int startFrame = 0;
  int endFrame = 0;
  double confidence = 0;
};

struct Utterance {
  bool has = false;
  std::string hyp;
  std::vector<Word> words;
};

// Collects the current hypothesis and its word segments. Frame numbers count from the last
// ps_start_stream(), so utterances of one stream share one timeline.
void collect(ps_decoder_t* ps, Utterance& u, bool withWords) {
  int32 score = 0;
  const char* h = ps_get_hyp(ps, &score);
  u.has = h != nullptr;
  if (h) u.hyp = h;
  if (!withWords) return;
  logmath_t* lmath = ps_get_logmath(ps);
  for (ps_seg_t* s = ps_seg_iter(ps); s; s = ps_seg_next(s)) {
    Word w;
    w.text = ps_seg_word(s);
    ps_seg_frames(s, &w.startFrame, &w.endFrame);
    int32 ascr, lscr, lback;
    int32 prob = ps_seg_prob(s, &ascr, &lscr, &lback);
    w.confidence = logmath_exp(lmath, prob);
    u.words.push_back(std::move(w));
  }
}

Napi::Object utteranceToJs(Napi::Env env, const Utterance& u, int frate) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("hyp", u.has ? Napi::Value(Napi::String::New(env, u.hyp)) : env.Null());
  Napi::Array a = Napi::Array::New(env, u.words.size());
  for (size_t i = 0; i < u.words.size(); i++) {
    const Word& w = u.words[i];
    Napi::Object wo = Napi::Object::New(env);
    wo.Set("word", w.text);
    wo.Set("start", (double)w.startFrame / frate);
    wo.Set("end", (double)(w.endFrame + 1) / frate);
    wo.Set("confidence", w.confidence);
    a.Set((uint32_t)i, wo);
  }
  o.Set("words", a);
  return o;
}

bool int16Samples(const Napi::Value& v, std::vector<int16>& out) {
  if (!v.IsTypedArray()) return false;
  Napi::TypedArray ta = v.As<Napi::TypedArray>();
  if (ta.TypedArrayType() != napi_int16_array) return false;
  Napi::ArrayBuffer ab = ta.ArrayBuffer();
  const int16* p = reinterpret_cast<const int16*>(static_cast<const uint8_t*>(ab.Data()) + ta.ByteOffset());
  out.assign(p, p + ta.ElementLength());
  return true;
}

class Decoder;

class DecoderWorker : public Napi::AsyncWorker {
 public:
  DecoderWorker(Napi::Env env, Decoder* d, Napi::Object self);
  Napi::Promise Promise() { return deferred_.Promise(); }
  void OnOK() override;
  void OnError(const Napi::Error& e) override;
  virtual Napi::Value Result(Napi::Env env) = 0;

 protected:
  Decoder* dec_;
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference self_;
};

class Decoder : public Napi::ObjectWrap<Decoder> {
 public:
  ps_decoder_t* ps = nullptr;
  std::vector<std::string> args;
  std::atomic<bool> busy{false};
  bool inUtterance = false;
  int frate = 100;
  // Cepstral mean saved after warm-up. The live CMN estimate otherwise carries over from
  // whatever the decoder heard last, so the same audio would be recognized differently on
  // different decoders (and a fresh decoder badly); every stream starts from this instead.
  std::vector<mfcc_t> cmn;

  void applyCmn() {
    feat_t* f = ps_get_feat(ps);
    if (!cmn.empty() && f && f->cmn_struct && (size_t)f->cmn_struct->veclen == cmn.size()) cmn_live_set(f->cmn_struct, cmn.data());
  }

  static Napi::Object Init(Napi::Env env, Napi::Object exports) {
    Napi::Function f = DefineClass(env, "Decoder", {
      InstanceMethod("init", &Decoder::InitAsync),
      InstanceMethod("startStream", &Decoder::StartStream),
      InstanceMethod("startUtterance", &Decoder::StartUtterance),
      InstanceMethod("process", &Decoder::ProcessAsync),
      InstanceMethod("partial", &Decoder::Partial),
      InstanceMethod("endUtterance", &Decoder::EndAsync),
      InstanceMethod("decodeContinuous", &Decoder::DecodeContinuousAsync),
      InstanceMethod("lookupWord", &Decoder::LookupWord),
      InstanceMethod("boost", &Decoder::BoostAsync),
      InstanceMethod("reset", &Decoder::ResetAsync),
      InstanceMethod("lmLog10Prob", &Decoder::LmLog10Prob),
      InstanceMethod("saveCmn", &Decoder::SaveCmn),
      InstanceMethod("getCmn", &Decoder::GetCmn),
      InstanceMethod("setCmn", &Decoder::SetCmn),
      InstanceMethod("align", &Decoder::AlignAsync),
      InstanceMethod("free", &Decoder::Free),
    });
    exports.Set("Decoder", f);
    return exports;
  }

  // new Decoder(["-hmm", dir, "-lm", file, "-dict", file, ...])
  Decoder(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Decoder>(info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsArray()) {
      Napi::TypeError::New(env, "new Decoder(args: string[])").ThrowAsJavaScriptException();
      return;
    }
    Napi::Array a = info[0].As<Napi::Array>();
    for (uint32_t i = 0; i < a.Length(); i++) {
      Napi::Value v = a.Get(i);
      if (!v.IsString()) {
        Napi::TypeError::New(env, "decoder arguments must be strings").ThrowAsJavaScriptException();
        return;
      }
      args.push_back(v.As<Napi::String>().Utf8Value());
    }
  }

  ~Decoder() override {
    if (ps) ps_free(ps);
  }

  // free(): releases the decoder's models now rather than whenever V8 collects this small wrapper
  // (which memory pressure from native allocations never prompts). Later calls throw "decoder not
  // initialised"; init() would load it again.
  Napi::Value Free(const Napi::CallbackInfo& info) {
    if (!ready(info.Env(), false)) return info.Env().Undefined();
    if (ps) ps_free(ps);
    ps = nullptr;
    inUtterance = false;
#ifdef __GLIBC__
    // The models were allocated on libuv's threads, in glibc arenas that keep freed memory;
    // without a trim most of it stays resident (measured: 445 -> 252 MB, then no return at all).
    malloc_trim(0);
#endif
    return info.Env().Undefined();
  }

  std::string doInit() {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>("parla"));
    for (auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
    cmd_ln_t* cfg = cmd_ln_parse_r(nullptr, ps_args(), (int32)argv.size(), argv.data(), TRUE);
    if (!cfg) return "invalid decoder arguments";
    ps_decoder_t* d = ps_init(cfg);
    cmd_ln_free_r(cfg);
    if (!d) return "ps_init failed (model files missing or unreadable?)";
    frate = cmd_ln_int32_r(ps_get_config(d), "-frate");
    ps = d;
    return "";
  }

  bool ready(Napi::Env env, bool needInit = true) {
    if (busy.load()) {
      Napi::Error::New(env, "decoder busy").ThrowAsJavaScriptException();
      return false;
    }
    if (needInit && !ps) {
      Napi::Error::New(env, "decoder not initialised").ThrowAsJavaScriptException();
      return false;
    }
    return true;
  }

  Napi::Value InitAsync(const Napi::CallbackInfo& info);
  Napi::Value ProcessAsync(const Napi::CallbackInfo& info);
  Napi::Value EndAsync(const Napi::CallbackInfo& info);
  Napi::Value DecodeContinuousAsync(const Napi::CallbackInfo& info);

  Napi::Value StartStream(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    if (inUtterance) {
      ps_end_utt(ps);
      inUtterance = false;
    }
    applyCmn();
    ps_start_stream(ps);
    return info.Env().Undefined();
  }

  Napi::Value StartUtterance(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    if (inUtterance) return info.Env().Undefined();
    if (ps_start_utt(ps) < 0) {
      Napi::Error::New(info.Env(), "ps_start_utt failed").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    inUtterance = true;
    return info.Env().Undefined();
  }

  // partial(withWords: boolean) -> { hyp, words }
  Napi::Value Partial(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    Utterance u;
    if (inUtterance) collect(ps, u, info.Length() > 0 && info[0].ToBoolean().Value());
    return utteranceToJs(info.Env(), u, frate);
  }

  // saveCmn() -> boolean: keeps the current cepstral mean as every later stream's starting point.
  Napi::Value SaveCmn(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    feat_t* f = ps_get_feat(ps);
    if (!f || !f->cmn_struct) return Napi::Boolean::New(info.Env(), false);
    cmn.assign(f->cmn_struct->veclen, 0);
    cmn_live_get(f->cmn_struct, cmn.data());
    return Napi::Boolean::New(info.Env(), true);
  }

  // getCmn() -> Float32Array | null: the saved mean, so that other decoders of the same acoustic
  // model can start from it without decoding the warm-up utterance themselves (2-3 s each).
  Napi::Value GetCmn(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    if (cmn.empty()) return info.Env().Null();
    Napi::Float32Array a = Napi::Float32Array::New(info.Env(), cmn.size());
    for (size_t i = 0; i < cmn.size(); i++) a[i] = (float)cmn[i];
    return a;
  }

  // setCmn(mean: Float32Array) -> boolean: takes a mean saved by getCmn() on a decoder of the same
  // model (false if its length does not match this model's cepstra; nothing changes then).
  Napi::Value SetCmn(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!ready(env)) return env.Undefined();
    if (info.Length() < 1 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array) {
      Napi::TypeError::New(env, "setCmn(mean: Float32Array)").ThrowAsJavaScriptException();
      return env.Undefined();
    }
    Napi::Float32Array a = info[0].As<Napi::Float32Array>();
    feat_t* f = ps_get_feat(ps);
    if (!f || !f->cmn_struct || (size_t)f->cmn_struct->veclen != a.ElementLength()) return Napi::Boolean::New(env, false);
    for (size_t i = 0; i < a.ElementLength(); i++) {
      if (!std::isfinite(a[i])) {
        Napi::RangeError::New(env, "setCmn(): the mean must be finite").ThrowAsJavaScriptException();
        return env.Undefined();
      }
    }
    cmn.assign(a.ElementLength(), 0);
    for (size_t i = 0; i < cmn.size(); i++) cmn[i] = (mfcc_t)a[i];
    applyCmn();
    return Napi::Boolean::New(env, true);
  }

  Napi::Value LookupWord(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(info.Env(), "lookupWord(word: string)").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    char* p = ps_lookup_word(ps, info[0].As<Napi::String>().Utf8Value().c_str());
    if (!p) return info.Env().Null();
    Napi::String s = Napi::String::New(info.Env(), p);
    ckd_free(p);
    return s;
  }

  Napi::Value BoostAsync(const Napi::CallbackInfo& info);
  Napi::Value ResetAsync(const Napi::CallbackInfo& info);
  Napi::Value AlignAsync(const Napi::CallbackInfo& info);

  ngram_model_t* currentLm() {
    const char* name = ps_get_search(ps);
    return name ? ps_get_lm(ps, name) : nullptr;
  }

  // lmLog10Prob(word) -> unigram log10 probability in the current search's model (null if unknown).
  Napi::Value LmLog10Prob(const Napi::CallbackInfo& info) {
    if (!ready(info.Env())) return info.Env().Undefined();
    if (info.Length() < 1 || !info[0].IsString()) {
      Napi::TypeError::New(info.Env(), "lmLog10Prob(word: string)").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    ngram_model_t* lm = currentLm();
    if (!lm) return info.Env().Null();
    std::string w = info[0].As<Napi::String>().Utf8Value();
    if (ngram_wid(lm, w.c_str()) == ngram_unknown_wid(lm)) return info.Env().Null();
    const char* words[1] = {w.c_str()};
    int32 p = ngram_prob(lm, words, 1);
    return Napi::Number::New(info.Env(), logmath_log_to_log10(ps_get_logmath(ps), p));
  }

};

DecoderWorker::DecoderWorker(Napi::Env env, Decoder* d, Napi::Object self)
    : Napi::AsyncWorker(env), dec_(d), deferred_(Napi::Promise::Deferred::New(env)) {
  self_ = Napi::Persistent(self);
}
void DecoderWorker::OnOK() {
  dec_->busy = false;
  deferred_.Resolve(Result(Env()));
}
void DecoderWorker::OnError(const Napi::Error& e) {
  dec_->busy = false;
  deferred_.Reject(e.Value());
}

class InitWorker : public DecoderWorker {
 public:
  using DecoderWorker::DecoderWorker;
  void Execute() override {
    std::string e = dec_->doInit();
    if (!e.empty()) SetError(e);
  }
  Napi::Value Result(Napi::Env env) override { return env.Undefined(); }
};

// process(samples) -> { inSpeech }: feeds audio into the open utterance.
class ProcessWorker : public DecoderWorker {
 public:
  ProcessWorker(Napi::Env env, Decoder* d, Napi::Object self, std::vector<int16>&& s) : DecoderWorker(env, d, self), samples_(std::move(s)) {}
  void Execute() override {
    if (ps_process_raw(dec_->ps, samples_.data(), samples_.size(), FALSE, FALSE) < 0) {
      SetError("ps_process_raw failed");
      return;
    }
    inSpeech_ = ps_get_in_speech(dec_->ps) != 0;
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object o = Napi::Object::New(env);
    o.Set("inSpeech", inSpeech_);
    return o;
  }

 private:
  std::vector<int16> samples_;
  bool inSpeech_ = false;
};

class EndWorker : public DecoderWorker {
 public:
  using DecoderWorker::DecoderWorker;
  void Execute() override {
    if (ps_end_utt(dec_->ps) < 0) {
      SetError("ps_end_utt failed");
      return;
    }
    collect(dec_->ps, u_, true);
  }
  Napi::Value Result(Napi::Env env) override { return utteranceToJs(env, u_, dec_->frate); }

 private:
  Utterance u_;
};

// decodeContinuous(samples) -> [{ hyp, words }]: a whole recording split into utterances where the
// decoder's voice activity detection finds pauses, as pocketsphinx_continuous does, in one job.
class ContinuousWorker : public DecoderWorker {
 public:
  ContinuousWorker(Napi::Env env, Decoder* d, Napi::Object self, std::vector<int16>&& s) : DecoderWorker(env, d, self), samples_(std::move(s)) {}
  void Execute() override {
    ps_decoder_t* ps = dec_->ps;
    dec_->applyCmn();
    ps_start_stream(ps);
    if (ps_start_utt(ps) < 0) {
      SetError("ps_start_utt failed");
      return;
    }
    const size_t chunk = 2048;
    bool wasInSpeech = false;
    for (size_t off = 0; off < samples_.size(); off += chunk) {
      size_t n = std::min(chunk, samples_.size() - off);
      ps_process_raw(ps, samples_.data() + off, n, FALSE, FALSE);
      bool inSpeech = ps_get_in_speech(ps) != 0;
      if (wasInSpeech && !inSpeech) {
        ps_end_utt(ps);
        Utterance u;
        collect(ps, u, true);
        if (u.has && !u.words.empty()) utterances_.push_back(std::move(u));
        ps_start_utt(ps);
      }
      wasInSpeech = inSpeech;
    }
    ps_end_utt(ps);
    Utterance u;
    collect(ps, u, true);
    if (u.has && !u.words.empty()) utterances_.push_back(std::move(u));
    dec_->inUtterance = false;
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Array a = Napi::Array::New(env, utterances_.size());
    for (size_t i = 0; i < utterances_.size(); i++) a.Set((uint32_t)i, utteranceToJs(env, utterances_[i], dec_->frate));
    return a;
  }

 private:
  std::vector<int16> samples_;
  std::vector<Utterance> utterances_;
};

// boost([{ word, phones }], probability) -> dictionary word ids (-1 for words already known).
//
// This libpocketsphinx/sphinxbase cannot safely put a word into its trie language model: re-adding
// a unigram overruns the unigram table, ps_add_word(update=TRUE) rebuilds the search without
// growing its per-word channel table, and a word appended to the trie crashes bigram lookups when
// it is the history of a known word (its id is past the largest key of the interpolation search).
// All three were measured as segfaults. So the trie is never touched: missing words go into the
// dictionary only (without a rebuild), the keywords form a small unigram model of their own, and
// a new n-gram search interpolates a private copy of the main model with it,
//   P(w | h) = (1 - p * (K + 1)) * P_main(w | h) + p * (K + 1) * P_kw(w),  P_kw = 1 / (K + 1),
// so each keyword gains about `probability` (and words unknown to the main model have no history
// there, which truncates the history instead of searching for it). The search is built on the
// grown dictionary (ps_set_lm sizes its tables then) and selected; reset() undoes everything.
class BoostWorker : public DecoderWorker {
 public:
  BoostWorker(Napi::Env env, Decoder* d, Napi::Object self, std::vector<std::pair<std::string, std::string>> w, double p)
      : DecoderWorker(env, d, self), words_(std::move(w)), prob_(p) {}
  void Execute() override {
    ps_decoder_t* ps = dec_->ps;
    cmd_ln_t* cfg = ps_get_config(ps);
    const char* lmPath = cmd_ln_str_r(cfg, "-lm");
    if (!lmPath) return SetError("the decoder has no n-gram language model");
    std::vector<std::string> kw;
    for (auto& [word, phones] : words_) {
      char* known = ps_lookup_word(ps, word.c_str());
      if (known) {
        ckd_free(known);
        ids_.push_back(-1);
        kw.push_back(word);
        continue;
      }
      int id = ps_add_word(ps, word.c_str(), phones.c_str(), FALSE);
      ids_.push_back(id);
      if (id >= 0) kw.push_back(word);
    }
    if (kw.empty()) return;
    char path[] = "/tmp/parla-kw-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return SetError("cannot write the keyword model");
    FILE* f = fdopen(fd, "w");
    double uniform = std::log10(1.0 / (kw.size() + 1));
    fprintf(f, "\\data\\\nngram 1=%zu\n\n\\1-grams:\n-99.0 <s> 0.0\n%.6f </s> 0.0\n", kw.size() + 2, uniform);
    for (auto& w : kw) fprintf(f, "%.6f %s 0.0\n", uniform, w.c_str());
    fprintf(f, "\n\\end\\\n");
    fclose(f);
    ngram_model_t* kwLm = ngram_model_read(cfg, path, NGRAM_ARPA, ps_get_logmath(ps));
    unlink(path);
    if (!kwLm) return SetError("cannot read the keyword model");
    ngram_model_t* main = ngram_model_read(cfg, lmPath, NGRAM_AUTO, ps_get_logmath(ps));
    if (!main) {
      ngram_model_free(kwLm);
      return SetError("cannot read the language model");
    }
    float32 share = (float32)std::min(0.3, prob_ * (kw.size() + 1));
    ngram_model_t* models[2] = {main, kwLm};
    char mainName[] = "main", kwName[] = "keywords";
    char* names[2] = {mainName, kwName};
    float32 weights[2] = {1.0f - share, share};
    ngram_model_t* set = ngram_model_set_init(cfg, models, names, weights, 2);  // owns both
    if (!set) {
      ngram_model_free(main);
      ngram_model_free(kwLm);
      return SetError("cannot combine the language models");
    }
    int rc = ps_set_lm(ps, "parla-boost", set);
    ngram_model_free(set);
    if (rc < 0 || ps_set_search(ps, "parla-boost") < 0) SetError("cannot build the boosted search");
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Array a = Napi::Array::New(env, ids_.size());
    for (size_t i = 0; i < ids_.size(); i++) a.Set((uint32_t)i, ids_[i]);
    return a;
  }

 private:
  std::vector<std::pair<std::string, std::string>> words_;
  double prob_;
  std::vector<int> ids_;
};

// reset(): ps_reinit with the decoder's own configuration reloads the dictionary, language model
// and acoustic model from their files, dropping every word added since (~0.5 s).
class ResetWorker : public DecoderWorker {
 public:
  ResetWorker(Napi::Env env, Decoder* d, Napi::Object self, bool endFirst) : DecoderWorker(env, d, self), endFirst_(endFirst) {}
  void Execute() override {
    if (endFirst_) ps_end_utt(dec_->ps);
    if (ps_reinit(dec_->ps, nullptr) < 0) SetError("ps_reinit failed");
  }
  Napi::Value Result(Napi::Env env) override { return env.Undefined(); }

 private:
  bool endFirst_;
};


// align(samples, words, additions) -> { hyp, words }: forced alignment of a known word sequence.
// A grammar that accepts exactly `words` in order (a linear finite-state graph; the search adds
// optional silences and fillers between words, and alternative pronunciations) replaces the
// current search, and the whole recording is decoded as one utterance (full_utt: cepstral mean of
// the whole recording), so the word segments are the best placement of the known text on the audio.
// Words missing from the dictionary come in `additions` with their phones (added once; kept).
// The decoder must run without voice activity detection (-remove_silence no): with it, a long
// pause splits the audio and the frames dropped in silence shift the times.
class AlignWorker : public DecoderWorker {
 public:
  AlignWorker(Napi::Env env, Decoder* d, Napi::Object self, std::vector<int16>&& s, std::vector<std::string>&& words,
              std::vector<std::pair<std::string, std::string>>&& additions)
      : DecoderWorker(env, d, self), samples_(std::move(s)), words_(std::move(words)), additions_(std::move(additions)) {}
  void Execute() override {
    ps_decoder_t* ps = dec_->ps;
    for (auto& [word, phones] : additions_) {
      char* known = ps_lookup_word(ps, word.c_str());
      if (known) {
        ckd_free(known);
        continue;
      }
      if (ps_add_word(ps, word.c_str(), phones.c_str(), FALSE) < 0) return SetError("cannot add the word " + word);
    }
    for (auto& w : words_) {
      char* known = ps_lookup_word(ps, w.c_str());
      if (!known) return SetError("the word " + w + " is not in the dictionary");
      ckd_free(known);
    }
    cmd_ln_t* cfg = ps_get_config(ps);
    fsg_model_t* fsg = fsg_model_init("parla-align", ps_get_logmath(ps), cmd_ln_float32_r(cfg, "-lw"), (int32)words_.size() + 1);
    fsg->start_state = 0;
    fsg->final_state = (int32)words_.size();
    for (size_t i = 0; i < words_.size(); i++) {
      int32 wid = fsg_model_word_add(fsg, words_[i].c_str());
      fsg_model_trans_add(fsg, (int32)i, (int32)i + 1, 0, wid);
    }
    int rc = ps_set_fsg(ps, "parla-align", fsg);
    fsg_model_free(fsg);
    if (rc < 0 || ps_set_search(ps, "parla-align") < 0) return SetError("cannot build the alignment grammar");
    dec_->applyCmn();
    ps_start_stream(ps);
    if (ps_start_utt(ps) < 0) return SetError("ps_start_utt failed");
    if (ps_process_raw(ps, samples_.data(), samples_.size(), FALSE, TRUE) < 0) {
      ps_end_utt(ps);
      return SetError("ps_process_raw failed");
    }
    if (ps_end_utt(ps) < 0) return SetError("ps_end_utt failed");
    collect(ps, u_, true);
  }
  Napi::Value Result(Napi::Env env) override { return utteranceToJs(env, u_, dec_->frate); }

 private:
  std::vector<int16> samples_;
  std::vector<std::string> words_;
  std::vector<std::pair<std::string, std::string>> additions_;
  Utterance u_;
};

// An array of { word, phones } (both non-empty strings), as align() and boost() take them, read
// into out; on anything else a TypeError with the method's usage is thrown and false returned.
static bool ReadWordPhones(Napi::Env env, Napi::Value value, const char* usage, std::vector<std::pair<std::string, std::string>>& out) {
  Napi::Array a = value.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); i++) {
    Napi::Value v = a.Get(i);
    if (!v.IsObject()) {
      Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
      return false;
    }
    Napi::Object o = v.As<Napi::Object>();
    Napi::Value w = o.Get("word"), p = o.Get("phones");
    if (!w.IsString() || !p.IsString() || w.As<Napi::String>().Utf8Value().empty() || p.As<Napi::String>().Utf8Value().empty()) {
      Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
      return false;
    }
    out.emplace_back(w.As<Napi::String>().Utf8Value(), p.As<Napi::String>().Utf8Value());
  }
  return true;
}

Napi::Value Decoder::AlignAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  const char* usage = "align(samples: Int16Array, words: string[], additions: Array<{ word: string, phones: string }>)";
  std::vector<int16> s;
  if (info.Length() < 3 || !int16Samples(info[0], s) || !info[1].IsArray() || !info[2].IsArray()) {
    Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::vector<std::string> words;
  Napi::Array wa = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < wa.Length(); i++) {
    Napi::Value v = wa.Get(i);
    if (!v.IsString() || v.As<Napi::String>().Utf8Value().empty()) {
      Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    words.push_back(v.As<Napi::String>().Utf8Value());
  }
  if (words.empty()) {
    Napi::RangeError::New(env, "align() needs at least one word").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::vector<std::pair<std::string, std::string>> additions;
  if (!ReadWordPhones(env, info[2], usage, additions)) return env.Undefined();
  if (inUtterance) {
    ps_end_utt(ps);
    inUtterance = false;
  }
  busy = true;
  auto* w = new AlignWorker(env, this, info.This().As<Napi::Object>(), std::move(s), std::move(words), std::move(additions));
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::BoostAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  const char* usage = "boost(words: Array<{ word: string, phones: string }>, probability: number)";
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsNumber()) {
    Napi::TypeError::New(env, usage).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  double weight = info[1].As<Napi::Number>().DoubleValue();
  if (!(weight > 0 && weight <= 0.1)) {
    Napi::RangeError::New(env, "probability must be in (0, 0.1]").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::vector<std::pair<std::string, std::string>> words;
  if (!ReadWordPhones(env, info[0], usage, words)) return env.Undefined();
  if (inUtterance) {
    Napi::Error::New(env, "boost() inside an utterance").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  busy = true;
  auto* w = new BoostWorker(env, this, info.This().As<Napi::Object>(), std::move(words), weight);
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::ResetAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  bool endFirst = inUtterance;
  inUtterance = false;
  busy = true;
  auto* w = new ResetWorker(env, this, info.This().As<Napi::Object>(), endFirst);
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::InitAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env, false)) return env.Undefined();
  if (ps) {
    Napi::Error::New(env, "decoder already initialised").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  busy = true;
  auto* w = new InitWorker(env, this, info.This().As<Napi::Object>());
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::ProcessAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  std::vector<int16> s;
  if (info.Length() < 1 || !int16Samples(info[0], s)) {
    Napi::TypeError::New(env, "process(samples: Int16Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (!inUtterance) {
    Napi::Error::New(env, "process() outside an utterance: call startUtterance() first").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  busy = true;
  auto* w = new ProcessWorker(env, this, info.This().As<Napi::Object>(), std::move(s));
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::EndAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  if (!inUtterance) {
    Napi::Error::New(env, "endUtterance() without an open utterance").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  inUtterance = false;
  busy = true;
  auto* w = new EndWorker(env, this, info.This().As<Napi::Object>());
  auto p = w->Promise();
  w->Queue();
  return p;
}

Napi::Value Decoder::DecodeContinuousAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ready(env)) return env.Undefined();
  std::vector<int16> s;
  if (info.Length() < 1 || !int16Samples(info[0], s)) {
    Napi::TypeError::New(env, "decodeContinuous(samples: Int16Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (inUtterance) {
    ps_end_utt(ps);
    inUtterance = false;
  }
  busy = true;
  auto* w = new ContinuousWorker(env, this, info.This().As<Napi::Object>(), std::move(s));
  auto p = w->Promise();
  w->Queue();
  return p;
}

// trimHeap() -> Promise<boolean>: gives the C heap's free pages back to the system (glibc's
// malloc_trim over every arena), on a libuv thread: the walk takes a few ms with hundreds of MB
// free and must not hold the event loop. glibc keeps what a thread freed in that thread's arena
// (up to 8 per core): after a burst of work (decoders, ONNX sessions, buffers of native code) a
// process measured 200 MB resident that one trim returned (decision #79). Resolves true when memory
// was released; false elsewhere than glibc.
class TrimWorker : public Napi::AsyncWorker {
 public:
  explicit TrimWorker(Napi::Env env) : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)) {}
  void Execute() override {
#ifdef __GLIBC__
    released_ = malloc_trim(0) == 1;
#endif
  }
  void OnOK() override { deferred_.Resolve(Napi::Boolean::New(Env(), released_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }
  Napi::Promise Promise() { return deferred_.Promise(); }

 private:
  Napi::Promise::Deferred deferred_;
  bool released_ = false;
};

Napi::Value TrimHeap(const Napi::CallbackInfo& info) {
  auto* w = new TrimWorker(info.Env());
  auto p = w->Promise();
  w->Queue();
  return p;
}

// PocketSphinx logs to stderr process-wide; Parla silences it once at load.
Napi::Value SetLogging(const Napi::CallbackInfo& info) {
  err_set_logfp(info.Length() > 0 && info[0].ToBoolean().Value() ? stderr : nullptr);
  return info.Env().Undefined();
}

Napi::Object InitAll(Napi::Env env, Napi::Object exports) {
  Decoder::Init(env, exports);
  exports.Set("setLogging", Napi::Function::New(env, SetLogging));
  exports.Set("trimHeap", Napi::Function::New(env, TrimHeap));
  return exports;
}

}  // namespace

NODE_API_MODULE(parla_pocketsphinx, InitAll)
