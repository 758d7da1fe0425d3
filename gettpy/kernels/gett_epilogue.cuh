// gett_epilogue.cuh — gett::Gett, part 5 of its class body: the chunked and direct epilogues of warp-specialised
// tiles
  // (D_REALIGN) a staged row's first nv finished values (`row`, contiguous) to D at `dst`, which may start anywhere:
  // the 16-byte words inside the span as vector stores, the values before the first and after the last word one at
  // a time; the warp's lanes share the row
  __device__ __forceinline__ static void store_row_realigned(const TE* row, TD* dst, int nv, int lane) {
    constexpr int FW = 16 / int(sizeof(TD));
    const int lead = int((reinterpret_cast<unsigned long long>(dst) / sizeof(TD)) % FW);
    const int head = min((FW - lead) % FW, nv);
    const int words = (nv - head) / FW, tail0 = head + words * FW;
    const int items = words + head + (nv - tail0);
    for (int it = lane; it < items; it += 32) {
      if (it < words) {
        const int c = head + it * FW;
        Pack<TD, FW> v;
#pragma unroll
        for (int e = 0; e < FW; ++e) v.e[e] = TD(row[c + e]);
        *reinterpret_cast<Pack<TD, FW>*>(dst + c) = v;
      } else {
        const int s = it - words, c = s < head ? s : tail0 + (s - head);
        dst[c] = TD(row[c]);
      }
    }
  }
  // (EPI_CHUNK) the epilogue through each computing warp's region (see EPI_CHUNK): per 64-row block of the warpgroup
  // and EPI_COLS columns, the warp stages its 16 rows as finished D values (2-byte values: stmatrix, four 8 x 8
  // fragments at once; else accumulator pairs (n, n + 1) as one store), then stores them in D_VEC-wide vectors along
  // n (D_REALIGN: row by row, as realigned words), and after its last stores releases the stage to the loaders. The
  // other warps' wgmmas have read the stage (the barrier before); no warp reads or writes another's region. alpha == 1
  // skips the scaling (SCALE)
  template <bool SCALE, int R>
  __device__ __forceinline__ static void warp_stores(const TAcc (&acc)[R], TE* es, TD* __restrict__ Db, TAcc alpha,
                                                     U m0, U n0, int wm0, int lane) {
    const int g = lane >> 2, q = lane & 3;
    constexpr int VD = Cfg::D_VEC, CW = EPI_COLS, RP = CW + EPAD, RPM = 16 + EPAD, LV = D_NCONTIG ? CW / VD : 16 / VD;
    auto fin = [&](TAcc v) { return finished<SCALE>(v, alpha); };
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll  // (whole: a chunk's accumulators are picked at compile time, so they stay in registers)
      for (int c0 = 0; c0 < BN; c0 += CW) {
        __syncwarp();  // (the region's reads of the previous chunk before it is staged again)
        if constexpr (sizeof(TE) == 2) {
          const int j = lane >> 3, r = (lane & 7) + 8 * (j & 1);  // (this lane's row of matrix j)
#pragma unroll
          for (int np = 0; np < CW / 16; ++np) {
            const int ni = c0 / 8 + 2 * np;
            unsigned w[4];
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {  // (matrix jj: rows 8 (jj & 1) .., columns of ni + (jj >> 1))
              const TAcc* a = &acc[(mi * NI + ni + (jj >> 1)) * 4 + 2 * (jj & 1)];
              w[jj] = bits_pair(fin(a[0]), fin(a[1]));
            }
            const int u = 2 * np + (j >> 1);  // (this lane's 16-byte unit of the row)
            if constexpr (!D_NCONTIG)  // (along m: this lane's address is column 8 u + lane % 8's, rows 8 (j & 1) ..)
              stmatrix_x4_trans(&es[(8 * u + (lane & 7)) * RPM + 8 * (j & 1)], w[0], w[1], w[2], w[3]);
            else
              stmatrix_x4(&es[r * RP + u * 8], w[0], w[1], w[2], w[3]);
          }
        } else {
#pragma unroll
          for (int nc = 0; nc < CW / 8; ++nc)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const TAcc* a = &acc[(mi * NI + c0 / 8 + nc) * 4 + 2 * h];
              *reinterpret_cast<Pack<TE, 2>*>(&es[(g + 8 * h) * RP + nc * 8 + 2 * q]) =
                  Pack<TE, 2>{{fin(a[0]), fin(a[1])}};
            }
        }
        const U row0 = m0 + U(wm0 + mi * 64);
        __syncwarp();
        if constexpr (D_REALIGN) {  // (the chunk's 16 rows, each contiguous from column n0 + c0)
          const U gn0 = n0 + U(c0);
          const int nv = FULL_N ? CW : gn0 < U(N) ? int(min(U(CW), U(N) - gn0)) : 0;
          if (nv > 0) {
            const I dn = gett_offset<I>(gn0, typename Cfg::MapDn{});
#pragma unroll 1
            for (int o = 0; o < 16; ++o) {
              const U gm = row0 + U(o);
              if (!(FULL_M || gm < U(M))) break;
              store_row_realigned(&es[o * RP], Db + gett_offset<I>(gm, typename Cfg::MapDm{}) + dn, nv, lane);
            }
          }
          continue;
        }
        // (the stores: along n, vector v of row o is columns c0 + v ..; along m, vector v of column o is rows v ..,
        //  a lane pair writing a column's 32 bytes, one sector where D is aligned. Plain stores: on the H100 no slower
        //  than st.global.cg or st.global.cs. Up to 16 rounds unrolled; more, of narrow vectors each with its own
        //  offsets, by 4: fully unrolled, 40-80 rounds spilled 280-590 bytes a thread under the 168-register cap)
        constexpr int NV = (D_NCONTIG ? 16 : CW) * LV, OP = D_NCONTIG ? RP : RPM;
        constexpr int UNROLL = NV / 32 <= 16 ? (NV + 31) / 32 : 4;
#pragma unroll UNROLL
        for (int idx0 = 0; idx0 < NV; idx0 += 32) {
          const int idx = idx0 + lane, o = idx / LV, v = (idx % LV) * VD;
          if (NV % 32 != 0 && idx >= NV) break;
          const U gm = row0 + U(D_NCONTIG ? o : v), gn = n0 + U(c0 + (D_NCONTIG ? v : o));
          if (!(FULL_M || gm < U(M)) || !(FULL_N || gn < U(N))) continue;
          TD* dst = Db + gett_offset<I>(gm, typename Cfg::MapDm{}) + gett_offset<I>(gn, typename Cfg::MapDn{});
          if constexpr (D_NCONTIG) {  // (a Pack copy: copy_vec renames registers here, which measured slower)
            Pack<TD, VD> out;
            load_run<VD, VD>(out.e, &es[o * OP + v]);
            *reinterpret_cast<Pack<TD, VD>*>(dst) = out;
          } else {  // (along m the Pack copy was split into 2- and 4-byte stores)
            copy_vec<TD, VD>(dst, &es[o * OP + v]);
          }
        }
      }
    }
  }
  template <int R>
  __device__ __forceinline__ static void store_chunked(const TAcc (&acc)[R], unsigned char* sa, unsigned char* sb,
                                                       unsigned long long* empty, TD* __restrict__ D, TAcc alpha, U bz,
                                                       U m0, U n0, int wm0) {
    const int lane = threadIdx.x & 31, cw = int(threadIdx.x >> 5) - (THREADS - ETHREADS) / 32;
    TE* es = reinterpret_cast<TE*>(cw < EPI_REG_A ? sa + cw * EPI_REG_BYTES : sb + (cw - EPI_REG_A) * EPI_REG_BYTES);
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    if (alpha == TAcc(1))
      warp_stores<false>(acc, es, Db, alpha, m0, n0, wm0, lane);
    else
      warp_stores<true>(acc, es, Db, alpha, m0, n0, wm0, lane);
    // (every lane's reads of the region before lane 0 releases the stage; then the loaders' TMA writes into it,
    //  async proxy, after these generic accesses)
    __syncwarp();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    release_stage(empty);
  }

  // (DIRECT_D) a computing thread's accumulators straight to D: per wgmma fragment row, pairs of
  // neighbouring columns (n, n + 1) as one store (D_VEC >= 2: contiguous and aligned), the row and column
  // offsets each computed once. QUAD_D (kernels/spec.py's KernelSpec.quad_d: 2-byte D in aligned vectors of 8 along
  // n, BN a multiple of 32): the four lanes of a quad, which hold one fragment row's pairs of four 8-column groups,
  // exchange them (a 4 x 4 transpose in two shfl.xor rounds) so that lane q stores group q's 8 columns as one
  // 16-byte vector: a warp's store writes whole 32-byte sectors, 8 rows of 64 bytes
  static constexpr bool QUAD_D = Cfg::QUAD_D;
  static_assert(!QUAD_D || (DIRECT_D && sizeof(TD) == 2 && Cfg::D_VEC >= 8 && BN % 32 == 0 && N % 8 == 0),
                "direct stores of whole 16-byte vectors along n");
  template <int R>
  __device__ __forceinline__ static void store_direct(const TAcc (&acc)[R], TD* __restrict__ D, TAcc alpha, U bz,
                                                      U m0, U n0, int wm0) {
    const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    I roff[MI][2];
    bool rok[MI][2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const U gm = m0 + U(wm0 + mi * MSTEP + g + h * 8);
        rok[mi][h] = FULL_M || gm < U(M);
        roff[mi][h] = rok[mi][h] ? gett_offset<I>(gm, typename Cfg::MapDm{}) : I(0);
      }
    if constexpr (QUAD_D) {
#pragma unroll
      for (int j = 0; j < NI / 4; ++j) {
        const U gn = n0 + U(32 * j + 8 * q);  // (this lane's vector: N is a multiple of 8, so it is whole or past N)
        const bool cok = FULL_N || gn < U(N);
        const I coff = cok ? gett_offset<I>(gn, typename Cfg::MapDn{}) : I(0);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            unsigned x[4];  // (x[k]: columns 32 j + 8 k + 2 q, + 1 of the row)
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              const TAcc* a = &acc[(mi * NI + 4 * j + k) * 4 + 2 * h];
              x[k] = bits_pair(finished(a[0], alpha), finished(a[1], alpha));
            }
            // (round b swaps bit b of the lane and of the index: a lane sends the words whose index bit differs from
            //  its own and takes its partner's in their place; after both, x[k] is lane k's word q: columns
            //  32 j + 8 q + 2 k, + 1)
#pragma unroll
            for (int b = 1; b <= 2; b *= 2) {
              const bool hi = q & b;
#pragma unroll
              for (int p = 0; p < 4; ++p) {
                if (p & b) continue;  // (the pair p, p + b)
                const unsigned got = __shfl_xor_sync(0xffffffffu, hi ? x[p] : x[p + b], b);
                if (hi) x[p] = got;
                else x[p + b] = got;
              }
            }
            if (rok[mi][h] && cok)
              *reinterpret_cast<uint4*>(Db + roff[mi][h] + coff) = make_uint4(x[0], x[1], x[2], x[3]);
          }
      }
      return;
    }
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const U gn = n0 + U(ni * 8 + 2 * q);
      if (!(FULL_N || gn < U(N))) continue;
      const I coff = gett_offset<I>(gn, typename Cfg::MapDn{});  // (N even: gn + 1 < N too)
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if (!rok[mi][h]) continue;
          const TAcc* a = &acc[(mi * NI + ni) * 4 + 2 * h];
          *reinterpret_cast<Pack<TD, 2>*>(Db + roff[mi][h] + coff) = Pack<TD, 2>{{finished(a[0], alpha),
                                                                                    finished(a[1], alpha)}};
        }
    }
  }

