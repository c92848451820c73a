"""Each gated row's pass levels (the median of each pass, us) in the baseline session and in the
A-against-A session of bench/python/host_a_vs_a.py, with the yardstick's levels beside them where
the rows carry one: the five rows that moved most either way, then how far the row's pass levels
and the yardstick's move together (within the baseline run, pass by pass; and across the 100 rows,
the ratio of the two sessions' medians).

    python3 pass-levels.py OUT
"""
import json, os, sys, statistics as st
out=sys.argv[1]
root=os.path.join(out,"pytest",".gpumeter","runs")
runs=[os.path.join(root,d) for d in sorted(os.listdir(root))]
def recs(folder):
    idx=json.load(open(os.path.join(folder,"index.json")))
    return {n:os.path.join(folder,c["record"]) for n,cs in idx["tests"].items() for c in cs.values()}
def info(p):
    r=json.load(open(p))["results"][0]
    xs=r["samples"]["device_busy_ns"]; ps=r["pass_sizes"]; y=r.get("yardstick")
    lv=[];at=0
    for s in ps: lv.append(st.median(xs[at:at+s])); at+=s
    return st.median(xs), lv, (y["pass_ns"] if y else None), r.get("load_average")
base=recs(runs[0]); same=recs(runs[1])
rows=[]
for n,p in same.items():
    b=info(base[n]); k=info(p)
    rows.append((k[0]/b[0], st.median(k[2])/st.median(b[2]) if b[2] else None, n, b, k))
rows.sort()
for r in rows[:5]+rows[-5:]:
    print("%.3f y%.3f %s" % (r[0], r[1] or 0, r[2]))
    print("  base lv", [round(x/1000,1) for x in r[3][1]], "y", [round(x/1000,1) for x in r[3][2]] if r[3][2] else None, r[3][3])
    print("  new  lv", [round(x/1000,1) for x in r[4][1]], "y", [round(x/1000,1) for x in r[4][2]] if r[4][2] else None, r[4][3])
# correlation of row-level and y-level per pass within run
import math
def corr(a,b):
    ma,mb=st.mean(a),st.mean(b); 
    return sum((x-ma)*(y-mb) for x,y in zip(a,b))/math.sqrt(sum((x-ma)**2 for x in a)*sum((y-mb)**2 for y in b))
L=[];Y=[]
for n,p in base.items():
    i=info(p)
    if i[2]:
        L+= [math.log(x) for x in i[1]]; Y+=[math.log(x) for x in i[2]]
if Y: print("per-pass corr log row vs log y (baseline run):", round(corr(L,Y),3), "sd row", round(st.pstdev(L),3), "sd y", round(st.pstdev(Y),3))
# across tests: log raw ratio vs log y ratio
a=[math.log(r[0]) for r in rows if r[1]]; b=[math.log(r[1]) for r in rows if r[1]]
if b: print("across tests corr log raw ratio vs log y ratio:", round(corr(a,b),3), "sd raw", round(st.pstdev(a),3), "sd y", round(st.pstdev(b),3))
