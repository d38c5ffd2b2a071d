#pragma once
// One generated skeleton (bpftool's open, load and destroy for one probes/x.bpf.c) with its
// ProgramSet: opened, its programs chosen for the running kernel, its read-only data filled in,
// loaded; destroyed after its links.

#include <memory>
#include <string>
#include <vector>

#include "trace/program_set.h"

namespace kdrift {

template <typename Skeleton>
class BpfObject {
 public:
  struct Functions {
    Skeleton* (*open)();
    int (*load)(Skeleton*);
    void (*destroy)(Skeleton*);
  };

  explicit BpfObject(Functions functions) : functions_(functions) {}
  BpfObject(const BpfObject&) = delete;
  BpfObject& operator=(const BpfObject&) = delete;
  ~BpfObject() {
    programs_.reset();  // the links go before the programs they attach
    if (skeleton_ != nullptr) functions_.destroy(skeleton_);
  }

  // configure(Skeleton&) sets the read-only data before the kernel sees the programs.
  template <typename Configure>
  Status load(const std::vector<TracepointPrograms>& wanted, const TraceFeatures& features,
              const std::string& what, Configure configure) {
    capture_libbpf_messages();
    skeleton_ = functions_.open();
    if (skeleton_ == nullptr) {
      return make_error(errno, what + ": opening the BPF object: " + last_libbpf_message());
    }
    if (auto chosen = programs_->choose(skeleton_->obj, wanted, features, what); !chosen) {
      return chosen;
    }
    configure(*skeleton_);
    if (const int result = functions_.load(skeleton_); result != 0) {
      return load_failure(result, what);
    }
    return ok_status();
  }

  Skeleton& skeleton() { return *skeleton_; }
  ProgramSet& programs() { return *programs_; }

 private:
  Functions functions_;
  Skeleton* skeleton_ = nullptr;
  std::unique_ptr<ProgramSet> programs_ = std::make_unique<ProgramSet>();
};

}  // namespace kdrift
