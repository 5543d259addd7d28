#ifndef HSS_CX_H
#define HSS_CX_H
#include "subscribers.h"
/* Registers the Cx application (TS 29.228/29.229, app id 16777216) and the UAR/MAR/SAR/LIR
 * handlers on freeDiameter's dispatcher. default_scscf may be NULL: then a UAA for an identity
 * without an assigned S-CSCF carries Server-Capabilities and the I-CSCF picks one. */
int hss_cx_init(struct hss_db *db, const char *default_scscf, int log_vectors);
/* Network-initiated de-registration (TS 29.228 6.1.3): sends an RTR for IMPU to the S-CSCF serving it
 * (Deregistration-Reason: reason_code, e.g. 0 PERMANENT_TERMINATION, and reason_info) and marks the
 * subscription not registered. -1 when IMPU is unknown or not registered, or the RTR cannot be sent. */
int hss_cx_rtr(const char *impu, int reason_code, const char *reason_info);
#endif
