#!/usr/bin/env python3
"""relay-idle.py CAPTURE.pcap... -- rtpengine's relay delay per direction split by how long the relay had
been idle when the packet arrived (docs/benchmarks.md "The to-IMS p99 tail").

Reads a `./lab bench gateway` capture (out/bench/gateway-<profile>/{raw,gateway-mo,gateway-mt}/relay.pcap:
nanosecond pcap on lo, relay ports as step.mjs's RELAY_PORTS, far ends in LAB_UE_RTP_PORTS are IMS), pairs each RTP packet's in and
out copy by (direction, SSRC, sequence number) as delaymeter does (same p50/p99), and for every in copy takes
the time since the relay's previous out copy of any call ("idle gap"). Prints per direction: n, p50/p95/p99/max
in microseconds, `by_idle` {bucket: [packets, p50 us, p99 us]} and `echo_turn_us` (the far end's echo:
to-IMS out copy -> the same packet's to-browser in copy). Percentiles are nearest-rank."""
import os, struct, sys, bisect
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from lab_addresses import LAB  # noqa: E402
RELAY=(30000,30999)  # rtpengine's media ports in the bench (start-rtpengine.sh's default, step.mjs RELAY_PORTS)
IMS=tuple(int(x) for x in LAB['LAB_UE_RTP_PORTS'].split('-'))  # every UE's echo port, as bench gateway's --ims-ports
def pct(v,p):
    if not v: return float('nan')
    s=sorted(v); import math; return s[max(1,math.ceil(p/100*len(s)))-1]
def read(fn):
    f=open(fn,'rb'); gh=f.read(24); magic=struct.unpack('<I',gh[:4])[0]
    nano = magic==0xa1b23c4d; lt=struct.unpack('<I',gh[20:24])[0]
    out=[]
    while True:
        h=f.read(16)
        if len(h)<16: break
        s,fr,il,ol=struct.unpack('<IIII',h); d=f.read(il)
        t=s*1_000_000_000+(fr if nano else fr*1000)
        off=14 if lt==1 else 0
        ip=d[off:]
        if len(ip)<20 or ip[0]>>4!=4 or ip[9]!=17: continue
        ihl=(ip[0]&15)*4; u=ip[ihl:]
        sp,dp=struct.unpack('>HH',u[:4]); r=u[8:]
        if len(r)<12 or r[0]>>6!=2: continue
        pt=r[1]&0x7f
        if 64<=pt<=95: continue
        seq=struct.unpack('>H',r[2:4])[0]; ssrc=struct.unpack('>I',r[8:12])[0]
        out.append((t,sp,dp,ssrc,seq))
    return out
def inr(p,r): return r[0]<=p<=r[1]
def analyze(fn, label=''):
    pk=read(fn); pk.sort()
    pend={}; rows=[]   # rows: (dir,t_in,t_out,delay_us)
    ev=[]  # (t, kind) kind: 'in'/'out'
    for t,sp,dp,ssrc,seq in pk:
        if inr(dp,RELAY) and not inr(sp,RELAY):
            d='to_browser' if inr(sp,IMS) else 'to_ims'
            pend.setdefault((d,ssrc,seq),[]).append(t); ev.append((t,0))
        elif inr(sp,RELAY) and not inr(dp,RELAY):
            d='to_ims' if inr(dp,IMS) else 'to_browser'
            l=pend.get((d,ssrc,seq))
            ev.append((t,1))
            if l: tin=l.pop(0); rows.append((d,tin,t,(t-tin)/1000,ssrc,seq))
    outs=[t for t,k in ev if k==1]; ins=[t for t,k in ev if k==0]
    # to_ims out time per (ssrc,seq) for echo turnaround
    imsout={(r[4],r[5]):r[2] for r in rows if r[0]=='to_ims'}
    res={}
    for d in ('to_ims','to_browser'):
        rs=[r for r in rows if r[0]==d]
        dl=[r[3] for r in rs]
        res[d]=dict(n=len(dl),p50=pct(dl,50),p95=pct(dl,95),p99=pct(dl,99),max=max(dl) if dl else 0)
        # idle gap: time since the relay's previous out copy before this in copy
        buckets={}
        busy=[]
        for r in rs:
            i=bisect.bisect_left(outs,r[1]); gap=(r[1]-outs[i-1])/1000 if i>0 else 1e9
            # packets in flight at the relay when this one arrived (arrived before it, left after it arrived)
            b='<100us' if gap<100 else '100us-1ms' if gap<1000 else '1-5ms' if gap<5000 else '>=5ms'
            buckets.setdefault(b,[]).append(r[3])
        res[d]['by_idle']={b:(len(v),round(pct(v,50),1),round(pct(v,99),1)) for b,v in sorted(buckets.items())}
    # echo turnaround (to_ims out -> to_browser in of the same packet)
    turn=[(r[1]-imsout[(r[4],r[5])])/1000 for r in rows if r[0]=='to_browser' and (r[4],r[5]) in imsout]
    res['echo_turn_us']=dict(p50=pct(turn,50),p99=pct(turn,99))
    return res,rows
if __name__=='__main__':
    import json
    for fn in sys.argv[1:]:
        r,_=analyze(fn); print(fn); print(json.dumps(r,indent=1,default=lambda x: round(x,1)))
