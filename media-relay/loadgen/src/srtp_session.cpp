#include "srtp_session.h"

#include <srtp2/srtp.h>

#include <cstring>
#include <mutex>

namespace lg {

bool srtpGlobalInit(std::string* err) {
  static std::once_flag once;
  static srtp_err_status_t status = srtp_err_status_ok;
  std::call_once(once, [] { status = srtp_init(); });
  if (status != srtp_err_status_ok && err) *err = "srtp_init failed (" + std::to_string(status) + ")";
  return status == srtp_err_status_ok;
}

std::string srtpLibrary() { return srtp_get_version_string(); }

#ifndef LOADGEN_SRTP_CRYPTO
#define LOADGEN_SRTP_CRYPTO "system"
#endif
const char* srtpCrypto() { return LOADGEN_SRTP_CRYPTO; }

static bool makeSession(void*& out, const uint8_t key[30], bool outbound, std::string* err) {
  srtp_policy_t policy;
  std::memset(&policy, 0, sizeof policy);
  srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtp);
  srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtcp);
  policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
  uint8_t keyCopy[30];
  std::memcpy(keyCopy, key, 30);
  policy.key = keyCopy;
  policy.window_size = 1024;  // tolerate reordering under load without false replay drops
  policy.allow_repeat_tx = 0;
  srtp_t s = nullptr;
  srtp_err_status_t st = srtp_create(&s, &policy);
  if (st != srtp_err_status_ok) {
    if (err) *err = "srtp_create failed (" + std::to_string(st) + ")";
    return false;
  }
  out = s;
  return true;
}

SrtpSession::~SrtpSession() { reset(); }

void SrtpSession::reset() {
  if (tx_) srtp_dealloc(static_cast<srtp_t>(tx_));
  if (rx_) srtp_dealloc(static_cast<srtp_t>(rx_));
  tx_ = rx_ = nullptr;
}

bool SrtpSession::init(const uint8_t localKey[30], const uint8_t remoteKey[30], std::string* err) {
  if (!srtpGlobalInit(err)) return false;
  return makeSession(tx_, localKey, true, err) && makeSession(rx_, remoteKey, false, err);
}

bool SrtpSession::protect(uint8_t* buf, int& len) {
  if (!tx_) return false;
  return srtp_protect(static_cast<srtp_t>(tx_), buf, &len) == srtp_err_status_ok;
}
SrtpSession::Rx SrtpSession::unprotectStatus(uint8_t* buf, int& len) {
  if (!rx_) return Rx::Other;
  switch (srtp_unprotect(static_cast<srtp_t>(rx_), buf, &len)) {
    case srtp_err_status_ok: return Rx::Ok;
    case srtp_err_status_replay_fail:
    case srtp_err_status_replay_old: return Rx::Replay;
    case srtp_err_status_auth_fail: return Rx::AuthFail;
    default: return Rx::Other;
  }
}
bool SrtpSession::protectRtcp(uint8_t* buf, int& len) {
  if (!tx_) return false;
  return srtp_protect_rtcp(static_cast<srtp_t>(tx_), buf, &len) == srtp_err_status_ok;
}
bool SrtpSession::unprotectRtcp(uint8_t* buf, int& len) {
  if (!rx_) return false;
  return srtp_unprotect_rtcp(static_cast<srtp_t>(rx_), buf, &len) == srtp_err_status_ok;
}

}  // namespace lg
